import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import type { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { renderSetupScript, renderWaiterScript, shellQuote } from "./shell.js";

function echoThroughShell(words: string[]): string[] {
  const script = `for word in ${words.map(shellQuote).join(" ")}; do printf '%s\\n' "$word"; done`;
  return execFileSync("/bin/sh", ["-c", script], { encoding: "utf8" }).split("\n").slice(0, -1);
}

describe("shellQuote", () => {
  it("passes any word through the shell unchanged", () => {
    const words = ["plain", "with space", "it's", "$(rm -rf /)", "`id`", "a\\b", "*", '"', "tab\there", ""];
    expect(echoThroughShell(words)).toEqual(words);
  });

  it("refuses NUL, which no argument can hold", () => {
    expect(() => shellQuote("a\0b")).toThrow(/NUL/);
  });
});

describe("renderSetupScript", () => {
  const script = renderSetupScript([
    { op: "tmpfs", target: "/s", options: "mode=0755" },
    { op: "overlay", target: "/s/root", lower: "/img", upper: "/s/upper", work: "/s/work" },
    { op: "bind", source: "/vol a", target: "/s/root/data", readOnly: true },
    { op: "touch", target: "/s/root/etc/hosts" },
    { op: "write", target: "/s/root/usr/bin/tool", content: "#!/bin/sh\necho 'hi'\n", mode: 0o755 },
  ]);

  it("renders each step as quoted commands, stopping at the first failure", () => {
    expect(script.split("\n")).toEqual(
      [
        "set -e",
        "mount -t tmpfs -o 'mode=0755' tmpfs '/s'",
        "mount -t overlay -o 'lowerdir=/img,upperdir=/s/upper,workdir=/s/work' overlay '/s/root'",
        "mount --rbind '/vol a' '/s/root/data'",
        "mount -o remount,bind,ro '/s/root/data'",
        ": >> '/s/root/etc/hosts'",
        `printf '%s' '#!/bin/sh\necho '\\''hi'\\''\n' > '/s/root/usr/bin/tool'`,
        "chmod 755 '/s/root/usr/bin/tool'",
        "",
      ]
        .join("\n")
        .split("\n"),
    );
    execFileSync("/bin/sh", ["-n", "-c", script]);
  });

  it("refuses overlay paths the option string cannot carry", () => {
    expect(() =>
      renderSetupScript([{ op: "overlay", target: "/r", lower: "/a,b", upper: "/u", work: "/w" }]),
    ).toThrow(/may not contain/);
  });
});

describe("renderWaiterScript", () => {
  it("waits for the go-ahead on fd 3, then runs the command in its root as the given user", () => {
    const script = renderWaiterScript({
      unsharePath: "/usr/bin/unshare",
      rootDir: "/s/root",
      workingDir: "/w",
      uid: 107,
      gid: 107,
    });
    expect(script).toContain(
      `exec '/usr/bin/unshare' '--root=/s/root' '--wd=/w' '--setgid=107' '--setuid=107' -- "$@"`,
    );
    execFileSync("/bin/sh", ["-n", "-c", script]);
  });

  it("gives up with exit 125 when the agent closes the socket instead", () => {
    const script = renderWaiterScript({ unsharePath: "/usr/bin/unshare", rootDir: "/", workingDir: "/" });
    let status: number | undefined;
    try {
      execFileSync("/bin/sh", ["-c", script, "waiter", "true"], {
        stdio: ["ignore", "ignore", "ignore", "pipe"],
      });
    } catch (error) {
      status = (error as { status: number }).status;
    }
    expect(status).toBe(125);
  });
});
