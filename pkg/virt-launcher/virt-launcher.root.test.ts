// virt-launcher for real (root, here and in CI): the launcher process with its private libvirtd
// and a TCG guest from the test image, driven over its gRPC socket like virt-handler does, with a
// stand-in Notify server receiving its events. The guest answers on the serial console; SIGTERM
// shuts it down through ACPI, and afterwards no process the launcher started is left.
import type { ChildProcess } from "node:child_process";
import { execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestGuest, TEST_GUEST_IMAGE } from "../../deploy/local/guest/test-guest.js";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { setDefaultVirtualMachineInstance } from "../defaults/defaults.js";
import { clusterWith, fixedUUID } from "../defaults/testing.js";
import { ensureTools } from "../ephemeral-disk/testing.js";
import { LauncherClient } from "../handler-launcher-com/cmd/v1/client.js";
import { domainNotifySocket, socketOnGuest } from "../handler-launcher-com/sockets.js";
import type { LauncherLayout } from "./layout.js";
import { qemuPidDir, serialConsoleSocket } from "./layout.js";
import { findPid } from "./monitor.js";
import type { RecordingNotifyServer } from "./notify-client/testing.js";
import { startRecordingNotifyServer } from "./notify-client/testing.js";
import { commandName, isAlive, processesWithEnv, processTree, pssKiB, rssKiB } from "./testing/processes.js";
import { SerialConsole } from "./testing/serial-console.js";
import { runnable, unlessRoot } from "../testutils/requirement.js";
import { ensureNativeBinary } from "../../deploy/local/node-agent/runtime/native-binary.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
// it starts libvirtd as another uid, which needs root
const isRoot = runnable("the virt-launcher test with a real libvirtd", unlessRoot());

const QEMU_UID = 61803;
const GUEST_HOSTNAME = "launcher-guest";
const BOOT_TIMEOUT_MS = 120_000;

function testVMI(): VirtualMachineInstance {
  const vmi: VirtualMachineInstance = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "lt", namespace: "default", uid: randomUUID() },
    spec: {
      domain: {
        devices: {
          autoattachPodInterface: false,
          disks: [
            { name: "containerdisk", disk: { bus: "virtio" } },
            { name: "cloudinitdisk", disk: { bus: "virtio" } },
          ],
        },
        resources: { requests: { memory: "128Mi" } },
      },
      terminationGracePeriodSeconds: 30,
      volumes: [
        { name: "containerdisk", containerDisk: { image: TEST_GUEST_IMAGE } },
        {
          name: "cloudinitdisk",
          cloudInitNoCloud: { userData: `#cloud-config\nhostname: ${GUEST_HOSTNAME}\n` },
        },
      ],
    },
  };
  const defaulted = setDefaultVirtualMachineInstance(
    clusterWith({ developerConfiguration: { useEmulation: true } }),
    vmi,
    { newUUID: fixedUUID },
  );
  if (!defaulted.ok) throw new Error(defaulted.message);
  return defaulted.value;
}

/** Where virt-handler would put the containerDisk: a link to (or copy of) the test image. */
function provideContainerDisk(image: string, containerDiskDir: string): void {
  const target = join(containerDiskDir, "disk_0.img");
  try {
    linkSync(image, target);
  } catch {
    copyFileSync(image, target);
  }
  chmodSync(target, 0o644);
}

function launcherArgs(vmi: VirtualMachineInstance, layout: LauncherLayout): string[] {
  // prettier-ignore
  return [
    "--qemu-timeout", "120s",
    "--name", vmi.metadata?.name ?? "",
    "--uid", vmi.metadata?.uid ?? "",
    "--namespace", vmi.metadata?.namespace ?? "",
    "--kubevirt-share-dir", layout.virtShareDir,
    "--ephemeral-disk-dir", layout.ephemeralDiskDir,
    "--container-disk-dir", layout.containerDiskDir,
    "--kubevirt-private-dir", layout.privateDir,
    "--run-dir", layout.runDir,
    "--grace-period-seconds", "30",
    "--hook-sidecars", "0",
    "--libvirt-uid", String(QEMU_UID),
    "--allow-emulation",
  ];
}

async function waitForFile(path: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  for (const started = Date.now(); !existsSync(path); await sleep(100)) {
    if (!alive()) throw new Error(`the launcher exited before ${path} appeared`);
    if (Date.now() - started > timeoutMs) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
  }
}

describe.runIf(isRoot)("virt-launcher with a real libvirtd and QEMU", () => {
  const vmi = testVMI();
  const domainName = `${vmi.metadata?.namespace}_${vmi.metadata?.name}`;
  let root = "";
  let layout: LauncherLayout;
  let launcher: ChildProcess | undefined;
  let launcherPid = 0;
  let launcherOutput = "";
  let launcherExit: Promise<number | null>;
  let notifyServer: RecordingNotifyServer | undefined;
  let client: LauncherClient | undefined;
  let console_: SerialConsole | undefined;
  const started: { qemu: number; libvirtd: number } = { qemu: 0, libvirtd: 0 };

  beforeAll(async () => {
    execFileSync(join(repoRoot, "pkg/libvirt/testdata/install-libvirt.sh"), { stdio: "pipe" });
    if (!ensureTools(["genisoimage"], ["genisoimage"]))
      throw new Error("genisoimage is missing and could not be installed");
    const image = await buildTestGuest();

    // Short paths: libvirt puts unix sockets several levels below these, and sun_path has 108 bytes.
    root = mkdtempSync(join(tmpdir(), "kvl-"));
    chmodSync(root, 0o755);
    layout = {
      virtShareDir: join(root, "share"),
      ephemeralDiskDir: join(root, "eph"),
      containerDiskDir: join(root, "share/cd"),
      privateDir: join(root, "priv"),
      runDir: join(root, "run"),
    };
    for (const dir of Object.values(layout)) mkdirSync(dir, { recursive: true, mode: 0o755 });
    provideContainerDisk(image.disk, layout.containerDiskDir);
    notifyServer = await startRecordingNotifyServer({ socketPath: domainNotifySocket(layout.virtShareDir) });

    // The pod's compute process: the native monitor, running the launcher beside it (here through tsx).
    const bin = join(root, "bin");
    mkdirSync(bin);
    const monitor = join(bin, "virt-launcher-monitor");
    copyFileSync(
      await ensureNativeBinary(join(repoRoot, "cmd/virt-launcher-monitor/main.c"), {
        binDir: join(root, "cache"),
      }),
      monitor,
    );
    chmodSync(monitor, 0o755);
    const entry = join(repoRoot, "cmd/virt-launcher/main.ts");
    writeFileSync(
      join(bin, "virt-launcher"),
      `#!/bin/sh\nexec '${process.execPath}' --import tsx '${entry}' "$@"\n`,
      { mode: 0o755 },
    );
    launcher = spawn(monitor, launcherArgs(vmi, layout), {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    launcherPid = launcher.pid ?? 0;
    launcher.stdout?.on("data", (chunk: Buffer) => (launcherOutput += chunk.toString()));
    launcher.stderr?.on("data", (chunk: Buffer) => (launcherOutput += chunk.toString()));
    const child = launcher;
    launcherExit = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    // Ready means the command socket got its final name.
    await waitForFile(socketOnGuest(layout.virtShareDir), 60_000, () => isAlive(launcherPid));
    client = await LauncherClient.connect(socketOnGuest(layout.virtShareDir));
  }, 600_000);

  afterAll(async () => {
    console_?.close();
    client?.close();
    // Whatever is still there is stopped by the PID this test recorded.
    const tree = launcherPid > 0 ? processTree(launcherPid) : [];
    for (const pid of [...tree, started.libvirtd, started.qemu]) {
      if (pid > 0 && isAlive(pid)) process.kill(pid, "SIGKILL");
    }
    await notifyServer?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("defines and starts the domain on SyncVirtualMachine, once", async () => {
    if (!client) throw new Error("no launcher client");
    await client.syncVirtualMachine(vmi);
    // The console socket exists as soon as QEMU does; attach before the guest prints its banner.
    console_ = await SerialConsole.open(serialConsoleSocket(layout, vmi.metadata?.uid ?? ""));
    await client.syncVirtualMachine(vmi);

    const domain = await client.getDomain();
    expect(domain?.status).toEqual({ status: "Running", reason: "Unknown" });
    expect(domain?.objectMeta).toMatchObject({ name: "lt", namespace: "default", uid: vmi.metadata?.uid });
    expect(domain?.spec.type).toBe("qemu");
    expect(domain?.spec.metadata?.kubeVirt.uid).toBe(vmi.metadata?.uid);

    started.qemu = await findPid(domainName, qemuPidDir(layout));
    started.libvirtd = processTree(launcherPid).find((pid) => commandName(pid) === "libvirtd") ?? 0;
    expect(isAlive(started.qemu)).toBe(true);
    expect(isAlive(started.libvirtd)).toBe(true);
    // QEMU and libvirtd run unprivileged.
    for (const pid of [started.qemu, started.libvirtd]) {
      expect(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]).toBe(String(QEMU_UID));
    }
  }, 120_000);

  it("sends domain events to the Notify server", async () => {
    if (!notifyServer) throw new Error("no notify server");
    const added = await notifyServer.waitForDomainEvent((event) => event.type === "ADDED");
    expect(added.domain.objectMeta.name).toBe("lt");
    const running = await notifyServer.waitForDomainEvent(
      (event) => event.domain.status.status === "Running",
    );
    expect(JSON.parse(running.json).Spec.Metadata.KubeVirt.UID).toBe(vmi.metadata?.uid);
  }, 30_000);

  it(
    "boots the guest, which answers on the serial console",
    async () => {
      if (!console_) throw new Error("serial console not open");
      await console_.waitFor(/kubevirt-ts test guest: up/, BOOT_TIMEOUT_MS);
      // The prompt carries the hostname from the cloud-init ISO the launcher built.
      const prompt = new RegExp(`root@${GUEST_HOSTNAME}:~# `);
      await console_.waitFor(prompt, BOOT_TIMEOUT_MS);
      const from = console_.output.length;
      console_.type("echo $((6*7))");
      await console_.waitFor(/^42\r?$/m, 30_000, from);
    },
    2 * BOOT_TIMEOUT_MS + 30_000,
  );

  it("reports the guest agent connected, as libvirt sees its channel, and answers GetGuestInfo from it", async () => {
    if (!client) throw new Error("no launcher client");
    const launcherClient = client;
    // libvirt's runtime state of the channel reaches virt-handler through GetDomain: "connected" once the
    // test guest's qemu-guest-agent opened it (then virt-handler sets AgentConnected).
    const channelState = async () =>
      (await launcherClient.getDomain())?.spec.devices.channels?.find(
        (c) => c.target?.name === "org.qemu.guest_agent.0",
      )?.target?.state;
    const deadline = Date.now() + 90_000;
    while ((await channelState()) !== "connected" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(await channelState()).toBe("connected");
    let info = await launcherClient.getGuestInfo();
    while (info.guestAgentVersion === "" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      info = await launcherClient.getGuestInfo();
    }
    expect(info.guestAgentVersion).not.toBe("");
    expect(info.timezone).toMatch(/, -?\d+$/);
  }, 120_000);

  it("stays small: launcher + libvirtd RSS, QEMU excluded", () => {
    const tree = processTree(launcherPid);
    expect(tree).not.toContain(started.qemu);
    const parts = tree.map((pid) => ({ pid, name: commandName(pid), rss: rssKiB(pid), pss: pssKiB(pid) }));
    const mib = (kib: number): string => `${(kib / 1024).toFixed(1)} MiB`;
    const sum = (key: "rss" | "pss"): number => parts.reduce((total, part) => total + part[key], 0);
    const line = parts.map((part) => `${part.name}(${part.pid}) ${mib(part.rss)}`).join(" + ");
    console.log(
      `virt-launcher pod processes without QEMU, RSS: ${line} = ${mib(sum("rss"))} (PSS ${mib(sum("pss"))})`,
    );
    console.log(`QEMU (${started.qemu}): RSS ${mib(rssKiB(started.qemu))}`);
    // upstream's process roles: virt-launcher-monitor → virt-launcher (node) → libvirtd (→ QEMU)
    expect(parts[0]?.name).toBe("virt-launcher-m"); // comm keeps 15 characters
    expect(parts.map((part) => part.name)).toEqual(expect.arrayContaining(["node", "libvirtd"]));
    // qemu.conf's stdio_handler = "file" took effect: QEMU's output spawned no session virtlogd
    expect(processesWithEnv("virtlogd", "XDG_RUNTIME_DIR", layout.runDir)).toEqual([]);
  });

  it("on SIGTERM shuts the guest down through ACPI, reports it, and leaves no process behind", async () => {
    if (!launcher || !console_ || !notifyServer) throw new Error("not started");
    const from = console_.output.length;
    launcher.kill("SIGTERM");
    // busybox init powers off on the ACPI power button.
    await console_.waitFor(/reboot: Power down/, 60_000, from);
    const final = await notifyServer.waitForDomainEvent(
      (event) => event.domain.objectMeta.deletionTimestamp !== undefined,
    );
    expect(final.domain.status).toMatchObject({ status: "NoState", reason: "NonExistent" });
    const events = notifyServer.domainEvents;
    expect(
      events.some(
        (event) => event.domain.status.status === "Shutoff" && event.domain.status.reason === "Shutdown",
      ),
    ).toBe(true);
    expect(
      events.some((event) => event.domain.spec.metadata?.kubeVirt.gracePeriod?.markedForGracefulShutdown),
    ).toBe(true);

    const exitCode = await Promise.race([launcherExit, sleep(60_000, "timeout")]);
    if (exitCode !== 0) console.log(launcherOutput.slice(-5000));
    expect(exitCode).toBe(0);
    for (const pid of [launcherPid, started.libvirtd, started.qemu]) expect(isAlive(pid)).toBe(false);
    expect(existsSync(socketOnGuest(layout.virtShareDir))).toBe(false);
  }, 150_000);
});
