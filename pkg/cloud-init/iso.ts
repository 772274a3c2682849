// Building the cloud-init volume: an ISO 9660 image with Joliet and Rock Ridge names whose volume
// label tells cloud-init the data source ("cidata" for NoCloud, "config-2" for ConfigDrive).
// Upstream runs xorrisofs; Debian's genisoimage takes the same options except cylinder alignment.
import { execFile, execFileSync } from "node:child_process";

export type IsoCreationFunc = (isoOutFile: string, volumeID: string, inDir: string) => Promise<void>;

const ISO_TIMEOUT_MS = 10_000;

function hasCommand(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The tool and arguments for one ISO, preferring upstream's xorrisofs. */
export function isoCommand(
  isoOutFile: string,
  volumeID: string,
  inDir: string,
  available: (command: string) => boolean = hasCommand,
): [string, string[]] {
  const common = ["-output", isoOutFile, "-volid", volumeID, "-joliet", "-rock"];
  if (available("xorrisofs")) return ["xorrisofs", [...common, "-partition_cyl_align", "on", inDir]];
  if (available("genisoimage")) return ["genisoimage", ["-quiet", ...common, inDir]];
  throw new Error("neither xorrisofs nor genisoimage is installed (Debian: apt-get install xorriso)");
}

export const defaultIsoFunc: IsoCreationFunc = (isoOutFile, volumeID, inDir) => {
  const [command, args] = isoCommand(isoOutFile, volumeID, inDir);
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: ISO_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const reason = error.killed ? "timed out" : `failed: ${String(stderr).trim() || error.message}`;
      reject(new Error(`${command} ${reason} while generating iso file ${isoOutFile}`));
    });
  });
};
