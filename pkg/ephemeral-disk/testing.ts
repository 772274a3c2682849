// Test helper: the Debian tools the disk and ISO tests drive, installed when missing (as root).
import { execFileSync } from "node:child_process";

function hasCommand(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** True when every command is there, installing `packages` first if one is missing and we may. */
export function ensureTools(commands: readonly string[], packages: readonly string[]): boolean {
  if (commands.every(hasCommand)) return true;
  if (process.getuid?.() !== 0 || !hasCommand("apt-get")) return false;
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const install = ["install", "-y", "-qq", "--no-install-recommends", ...packages];
    try {
      execFileSync("apt-get", install, { stdio: "ignore", env });
    } catch {
      execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
      execFileSync("apt-get", install, { stdio: "ignore", env });
    }
  } catch {
    return false;
  }
  return commands.every(hasCommand);
}
