import { spawn } from "node:child_process";
import { copyFile, chmod, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nativeProgram } from "../../pkg/native/testing.js";

// The real program, built as the node agent builds it for the launcher image, with a stand-in virt-launcher
// beside it (a shell script that records how it was started and obeys what the test tells it), as
// /usr/bin/virt-launcher sits beside /usr/bin/virt-launcher-monitor in the image.

/** The stand-in launcher: records its arguments, says when it got SIGTERM, exits as $FAKE_EXIT says. */
const FAKE_LAUNCHER = `#!/bin/sh
echo "$@" > "$FAKE_DIR/args"
trap 'echo TERM > "$FAKE_DIR/signal"; exit 0' TERM
case "$FAKE_EXIT" in
  wait) while :; do sleep 0.05; done ;;
  killed) kill -KILL $$ ;;
  *) exit "$FAKE_EXIT" ;;
esac
`;

const fixture = nativeProgram(path.join(import.meta.dirname, "main.c"), "virt-launcher-monitor");
const started = fixture.started;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

let cases = 0;

/** A pod's worth of directories and the two programs side by side in its own bin dir. */
async function pod(launcher: string | null = FAKE_LAUNCHER) {
  const root = path.join(fixture.dir, `case-${++cases}`);
  const bin = path.join(root, "usr/bin");
  const paths = {
    root,
    fake: path.join(root, "fake"),
    run: path.join(root, "run"),
    private: path.join(root, "private"),
    disks: path.join(root, "container-disks"),
    monitor: path.join(bin, "virt-launcher-monitor"),
  };
  for (const d of [bin, paths.fake, paths.run, paths.private, paths.disks])
    await mkdir(d, { recursive: true });
  await copyFile(fixture.binary, paths.monitor);
  await chmod(paths.monitor, 0o755);
  if (launcher !== null) {
    await writeFile(path.join(bin, "virt-launcher"), launcher);
    await chmod(path.join(bin, "virt-launcher"), 0o755);
  }
  return paths;
}

function run(p: Awaited<ReturnType<typeof pod>>, args: string[], fakeExit: string) {
  const child = spawn(
    p.monitor,
    ["--run-dir", p.run, "--kubevirt-private-dir", p.private, "--container-disk-dir", p.disks, ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: "/usr/bin:/bin", FAKE_DIR: p.fake, FAKE_EXIT: fakeExit },
    },
  );
  started.add(child);
  let stderr = "";
  child.stdout.on("data", () => undefined);
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exit>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  const messages = () =>
    stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { component: string; level: string; msg: string });
  return { child, exited, messages, err: () => stderr };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const exists = (file: string) =>
  readFile(file).then(
    () => true,
    () => false,
  );

describe("virt-launcher-monitor", () => {
  it("runs virt-launcher beside it with its arguments but --keep-after-failure, and exits with its code", async () => {
    const p = await pod();
    const m = run(p, ["--name", "demo", "--keep-after-failure", "--uid", "1234"], "0");
    expect(await m.exited).toEqual({ code: 0, signal: null });
    expect((await readFile(path.join(p.fake, "args"), "utf8")).trim()).toBe(
      `--run-dir ${p.run} --kubevirt-private-dir ${p.private} --container-disk-dir ${p.disks} --name demo --uid 1234`,
    );
    const messages = m.messages();
    expect(messages.every((line) => line.component === "virt-launcher-monitor")).toBe(true);
    expect(messages.at(-1)?.msg).toBe("virt-launcher-monitor: Exiting...");
  });

  it("exits with the code of a launcher that failed, and says so", async () => {
    const p = await pod();
    const m = run(p, [], "3");
    expect(await m.exited).toEqual({ code: 3, signal: null });
    expect(m.messages()).toContainEqual(
      expect.objectContaining({ level: "error", msg: "dirty virt-launcher shutdown: exit-code 3" }),
    );
  });

  it("hands SIGTERM, SIGINT and SIGQUIT to the launcher as SIGTERM", async () => {
    for (const signal of ["SIGTERM", "SIGINT", "SIGQUIT"] as const) {
      const p = await pod();
      const m = run(p, [], "wait");
      await until("the launcher to start", () => exists(path.join(p.fake, "args")));
      m.child.kill(signal);
      expect(await m.exited).toEqual({ code: 0, signal: null });
      expect((await readFile(path.join(p.fake, "signal"), "utf8")).trim()).toBe("TERM");
      expect(m.messages().map((line) => line.msg)).toContain("signalling virt-launcher to shut down");
    }
  });

  it("reports a launcher ended by a signal as Go does (exit status -1, so 255)", async () => {
    const p = await pod();
    const m = run(p, [], "killed");
    expect(await m.exited).toEqual({ code: 255, signal: null });
    expect(m.messages().map((line) => line.msg)).toContain("dirty virt-launcher shutdown: exit-code -1");
  });

  it("fails with a message when there is no virt-launcher to run", async () => {
    const p = await pod(null);
    const m = run(p, [], "0");
    expect(await m.exited).toEqual({ code: 1, signal: null });
    const messages = m.messages().map((line) => line.msg);
    expect(messages.some((msg) => msg.startsWith("failed to run virt-launcher: fork/exec "))).toBe(true);
    expect(messages).toContain("monitoring virt-launcher failed");
  });

  it("afterwards dumps QEMU's logs, stops a QEMU of this pod left running, and removes the disk sockets", async () => {
    const p = await pod();
    const logDir = path.join(p.private, "libvirt/qemu/log");
    await mkdir(logDir, { recursive: true });
    await writeFile(path.join(logDir, "default_demo.log"), "qemu line one\nqemu line two\n");
    // a process named as QEMU is (its comm comes from the file name it was started by)
    const qemuBinary = path.join(p.root, "qemu-system-x86_64");
    await symlink("/bin/sleep", qemuBinary);
    const qemu = spawn(qemuBinary, ["60"], { stdio: "ignore" });
    started.add(qemu);
    const qemuExit = new Promise<NodeJS.Signals | null>((resolve) =>
      qemu.on("exit", (_code, signal) => resolve(signal)),
    );
    const pidDir = path.join(p.run, "libvirt/qemu/run");
    await mkdir(pidDir, { recursive: true });
    await writeFile(path.join(pidDir, "default_demo.pid"), `${qemu.pid}`);
    await writeFile(path.join(p.disks, "disk_0.sock"), "");
    await writeFile(path.join(p.disks, "disk_0.img"), "");

    const m = run(p, [], "0");
    expect(await m.exited).toEqual({ code: 0, signal: null });
    expect(await qemuExit).toBe("SIGTERM");
    expect(await readdir(p.disks)).toEqual(["disk_0.img"]);
    const messages = m.messages().map((line) => line.msg);
    expect(messages).toEqual(
      expect.arrayContaining([
        `dump log file: ${path.join(logDir, "default_demo.log")}`,
        "qemu line one",
        "qemu line two",
        "Killing QEMU gracefully.",
      ]),
    );
  });

  it("leaves a pid file of a process that is not QEMU alone", async () => {
    const p = await pod();
    const other = spawn("/bin/sleep", ["60"], { stdio: "ignore" });
    started.add(other);
    const pidDir = path.join(p.run, "libvirt/qemu/run");
    await mkdir(pidDir, { recursive: true });
    await writeFile(path.join(pidDir, "stale.pid"), `${other.pid}`);
    const m = run(p, [], "0");
    expect(await m.exited).toEqual({ code: 0, signal: null });
    expect(other.exitCode === null && other.signalCode === null).toBe(true);
    other.kill("SIGKILL");
  });

  it("with --keep-after-failure stays after a failed launcher, stop signals notwithstanding", async () => {
    const p = await pod();
    const m = run(p, ["--keep-after-failure"], "1");
    await until("the keep-alive message", () =>
      m
        .messages()
        .some(
          (line) =>
            line.msg === "keeping virt-launcher container alive since --keep-after-failure is set to true",
        ),
    );
    m.child.kill("SIGTERM");
    await sleep(300);
    expect(m.child.exitCode).toBe(null);
    m.child.kill("SIGKILL");
    expect(await m.exited).toEqual({ code: null, signal: "SIGKILL" });
  });

  it("refuses a --keep-after-failure value that is not a bool, as pflag does", async () => {
    const p = await pod();
    const m = run(p, ["--keep-after-failure=maybe"], "0");
    expect(await m.exited).toEqual({ code: 2, signal: null });
    expect(m.err()).toContain(
      'invalid argument "maybe" for "--keep-after-failure" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(await exists(path.join(p.fake, "args"))).toBe(false);
  });
});
