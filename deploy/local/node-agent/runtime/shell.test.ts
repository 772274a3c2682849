import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { renderSetupScript, renderSupervisorScript, shellQuote } from "./shell.js";
import { runnable, unlessRoot } from "../../../../pkg/testutils/requirement.js";

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
  it("applies kubelet's propagation modes the way runc does, and copies binaries", () => {
    const lines = renderSetupScript([
      { op: "private", target: "/s" },
      { op: "propagation", target: "/s/root/a", propagation: "None" },
      { op: "propagation", target: "/s/root/b", propagation: "HostToContainer" },
      { op: "propagation", target: "/s/root/c", propagation: "Bidirectional" },
      { op: "copy", target: "/s/root/usr/bin/x", source: "/cache/x", mode: 0o755 },
    ]).split("\n");
    expect(lines).toEqual([
      "set -e",
      "mount --make-private '/s'",
      "mount --make-rprivate '/s/root/a'",
      "mount --make-rslave '/s/root/b'",
      "mount --make-rshared '/s/root/c'",
      "cp '/cache/x' '/s/root/usr/bin/x'",
      "chmod 755 '/s/root/usr/bin/x'",
      "",
    ]);
  });

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

describe("renderSupervisorScript", () => {
  const options = { unsharePath: "/usr/bin/unshare", rootDir: "/", workingDir: "/" };

  it("waits for the go-ahead on fd 3, then runs the command in its root as the given user", () => {
    const script = renderSupervisorScript({
      ...options,
      rootDir: "/s/root",
      workingDir: "/w",
      statusFile: "/st",
      uid: 107,
      gid: 107,
    });
    expect(script).toContain(
      `'/usr/bin/unshare' '--root=/s/root' '--wd=/w' '--setgid=107' '--setuid=107' -- "$@"`,
    );
    execFileSync("/bin/sh", ["-n", "-c", script]);
  });

  async function runSupervised(
    command: string[],
    statusFile: string,
    release: boolean,
    signal?: NodeJS.Signals,
  ) {
    const script = renderSupervisorScript({ ...options, statusFile });
    const child = spawn("/bin/sh", ["-c", script, "supervisor", ...command], {
      stdio: ["ignore", "ignore", "ignore", "pipe"],
      detached: true,
    });
    const control = child.stdio[3] as Duplex;
    const [ready] = (await once(control, "data")) as [Buffer];
    expect(ready.toString()).toBe("ready\n");
    control.end(release ? "run\n" : undefined);
    if (signal) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      process.kill(-(child.pid as number), signal);
    }
    const [code] = (await once(child, "exit")) as [number];
    return code;
  }

  it("gives up with exit 125 when the agent closes the socket instead", async () => {
    expect(await runSupervised(["true"], "/nonexistent/status", false)).toBe(125);
  });

  // unshare --root needs CAP_SYS_CHROOT.
  const root = runnable("the supervised runs (they chroot)", unlessRoot());

  it.runIf(root)("records the command's exit status and survives the group's SIGTERM to do so", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "kvts-supervisor-"));
    try {
      const statusFile = path.join(dir, "status");
      expect(await runSupervised(["sh", "-c", "exit 7"], statusFile, true)).toBe(7);
      expect(await readFile(statusFile, "utf8")).toBe("7\n");
      const trapping = ["sh", "-c", "trap 'exit 3' TERM; while :; do sleep 0.05; done"];
      expect(await runSupervised(trapping, statusFile, true, "SIGTERM")).toBe(3);
      expect(await readFile(statusFile, "utf8")).toBe("3\n");
      expect(await runSupervised(["sleep", "5"], statusFile, true, "SIGTERM")).toBe(143);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
