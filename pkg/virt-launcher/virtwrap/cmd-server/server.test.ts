import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../controller/log.js";
import { LauncherClient } from "../../../handler-launcher-com/cmd/v1/client.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultedVMI } from "../converter/testing.js";
import { noSuchDomain } from "../testing/fake-libvirt.js";
import { testManager } from "../testing/test-manager.js";
import { layoutUnder } from "../../layout.js";
import { AgentPoller } from "../agent-poller/agent-poller.js";
import type { DomainManager } from "./server.js";
import type { DomainStats } from "../stats/types.js";
import { convertDomainStats } from "../stats/libvirt-stats.js";
import { INVALID_VMI_MESSAGE, Launcher, errorMessage, notSupportedMessage, runServer } from "./server.js";

const vmi = defaultedVMI({
  domain: { devices: { autoattachPodInterface: false }, resources: { requests: { memory: "64Mi" } } },
});

let stopServer: (() => Promise<void>) | undefined;
let client: LauncherClient | undefined;
afterEach(async () => {
  client?.close();
  await stopServer?.();
  client = undefined;
  stopServer = undefined;
});

async function serve(
  manager: DomainManager,
  allowEmulation = true,
  targetPodExit?: { podName: string | undefined; signal: AbortController },
  domainStats?: () => Promise<DomainStats | undefined>,
): Promise<LauncherClient> {
  const socketPath = join(mkdtempSync(join(tmpdir(), "kvts-cmd-")), "launcher-sock");
  const server = await runServer(
    socketPath,
    new Launcher({ manager, allowEmulation, log: silentLogger, targetPodExit, domainStats }),
  );
  stopServer = server.stop;
  client = await LauncherClient.connect(socketPath);
  return client;
}

describe("the launcher's Cmd server", () => {
  it("syncs a VMI into a running domain and reports it through GetDomain", async () => {
    const { manager } = testManager();
    const launcher = await serve(manager);
    expect(await launcher.getDomain()).toBeUndefined();
    await launcher.syncVirtualMachine(vmi);
    const domain = await launcher.getDomain();
    expect(domain?.status).toEqual({ status: "Running", reason: "Unknown" });
    expect(domain?.objectMeta.name).toBe("testvmi");
    expect(domain?.spec.type).toBe("qemu");
  });

  it("passes the allow-emulation setting to the manager", async () => {
    const { manager } = testManager();
    const launcher = await serve(manager, false);
    await expect(launcher.syncVirtualMachine(vmi)).rejects.toThrow(
      "kvm not present and emulation is not allowed",
    );
  });

  it("shuts down, kills and deletes through the manager", async () => {
    const { fake, manager } = testManager();
    const launcher = await serve(manager);
    await launcher.syncVirtualMachine(vmi);
    await launcher.pauseVirtualMachine(vmi);
    await launcher.unpauseVirtualMachine(vmi);
    await launcher.shutdownVirtualMachine(vmi);
    await launcher.killVirtualMachine(vmi);
    await launcher.deleteDomain(vmi);
    const commands = fake.calls
      .filter((call) => !call.startsWith("lookup"))
      .map((call) => call.split(" ")[0]);
    expect(commands).toEqual(["define", "create", "suspend", "resume", "shutdown", "destroy", "undefine"]);
  });

  it("resets, soft-reboots, freezes with the unfreeze timeout and unfreezes through the manager", async () => {
    const { fake, manager } = testManager();
    const launcher = await serve(manager);
    await launcher.syncVirtualMachine(vmi);
    fake.agent.connected = true;
    await launcher.resetVirtualMachine(vmi);
    await launcher.softRebootVirtualMachine(vmi);
    await launcher.freezeVirtualMachine(vmi, 0);
    await launcher.unfreezeVirtualMachine(vmi);
    const commands = fake.calls
      .filter((call) => !call.startsWith("lookup") && !call.startsWith("agent"))
      .map((call) => call.split(" ")[0]);
    expect(commands).toEqual(["define", "create", "reset", "reboot", "fsfreeze", "fsthaw"]);
  });

  it("answers a freeze of a guest without agent with libvirt's error, named as upstream's client does", async () => {
    const { manager } = testManager();
    const launcher = await serve(manager);
    await launcher.syncVirtualMachine(vmi);
    await expect(launcher.freezeVirtualMachine(vmi, 300)).rejects.toThrow(
      `server error. command Freeze failed: "LibvirtError(Code=86, Domain=10, Message='Guest agent is not responding: QEMU guest agent is not connected')"`,
    );
  });

  it("answers a request without a valid VMI as upstream does", async () => {
    const launcher = await serve(testManager().manager);
    const garbled = await launcher.call("SyncVirtualMachine", { vmi: { vmiJson: Buffer.from("{not json") } });
    expect(garbled).toEqual({ success: false, message: INVALID_VMI_MESSAGE });
    const missing = await launcher.call("KillVirtualMachine", {});
    expect(missing).toEqual({ success: false, message: INVALID_VMI_MESSAGE });
    const notAVMI = await launcher.call("KillVirtualMachine", {
      vmi: { vmiJson: Buffer.from('{"spec": 5}') },
    });
    expect(notAVMI.success).toBe(false);
  });

  it("answers what is not built yet with a clear message, in the method's response shape", async () => {
    const launcher = await serve(testManager().manager);
    const hotplug = await launcher.call("HotplugHostDevices", {
      vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) },
    });
    expect(hotplug).toEqual({ success: false, message: notSupportedMessage("HotplugHostDevices") });
    const dirtyRate = await launcher.call("GetDomainDirtyRateStats", {});
    expect(dirtyRate.response).toEqual({
      success: false,
      message: "GetDomainDirtyRateStats is not supported yet by kubevirt-ts",
    });
  });

  it("answers GetDomainStats with the domain's statistics as JSON, none without a domain, or why not", async () => {
    const stats = convertDomainStats({
      name: "default_testvmi",
      uuid: "5e2fa4a4-4a60-4b1c-9d3c-1f0e3f0b6a11",
      params: { "cpu.time": 1_500_000_000n, "vcpu.current": 1, "vcpu.0.state": 1, "vcpu.0.time": 900n },
      memory: [{ tag: 7, val: 51200n }],
      info: { memory: 65536n, nrVirtCpu: 1 },
      aliases: new Map(),
    });
    let answer: () => Promise<DomainStats | undefined> = () => Promise.resolve(stats);
    const launcher = await serve(testManager().manager, true, undefined, () => answer());
    expect(await launcher.getDomainStats()).toEqual(stats);
    const raw = await launcher.call("GetDomainStats", {});
    expect(JSON.parse(raw.domainStats)).toMatchObject({
      Name: "default_testvmi",
      Memory: { RSSSet: true, RSS: 51200 },
    });

    answer = () => Promise.resolve(undefined);
    expect((await launcher.call("GetDomainStats", {})).domainStats).toBe("null");
    expect(await launcher.getDomainStats()).toBeUndefined();

    answer = () => Promise.reject(new Error("libvirt went away"));
    await expect(launcher.getDomainStats()).rejects.toThrow(
      'server error. command GetDomainStats failed: "libvirt went away"',
    );
  });

  it("takes a screenshot of the VMI's domain, and says why it cannot when there is none", async () => {
    const { fake, manager } = testManager();
    const launcher = await serve(manager);
    await expect(launcher.getScreenshot(vmi)).rejects.toThrow(
      /Domain not found: no domain with matching name 'default_testvmi'/,
    );
    await launcher.syncVirtualMachine(vmi);
    const shot = await launcher.getScreenshot(vmi);
    expect(shot.mime).toBe("image/png");
    expect(shot.data.toString("hex")).toBe("89504e470d0a1a0a");
    expect(fake.calls).toContain("screenshot default_testvmi screen=0");
    const garbled = await launcher.call("GetScreenshot", { vmi: { vmiJson: Buffer.from("{") } });
    expect(garbled.response).toEqual({ success: false, message: INVALID_VMI_MESSAGE });
  });

  it("takes SignalTargetPodCleanup as the signal to exit only when it names this pod as the target", async () => {
    const signal = new AbortController();
    const launcher = await serve(testManager().manager, true, {
      podName: "virt-launcher-vmi-target",
      signal,
    });
    const withTarget = (targetPod: string) => ({
      ...vmi,
      status: { migrationState: { targetPod } },
    });
    await launcher.signalTargetPodCleanup(withTarget("virt-launcher-vmi-source"));
    expect(signal.signal.aborted).toBe(false);
    await launcher.signalTargetPodCleanup(withTarget("virt-launcher-vmi-target"));
    expect(signal.signal.aborted).toBe(true);
  });

  it("pings and tells QEMU's version", async () => {
    const launcher = await serve(testManager().manager);
    await launcher.ping();
    expect(await launcher.getQemuVersion()).toBe("7.2.0");
  });

  it("serves what the guest agent reported: guest info, users, filesystems, as upstream's JSON", async () => {
    const { fake, manager, agentStore } = testManager();
    const launcher = await serve(manager);
    const empty = await launcher.call("GetGuestInfo", {});
    expect(empty.response).toEqual({ success: true, message: "" });
    expect(JSON.parse(empty.guestInfoResponse)).toEqual({ os: {}, timezone: ", 0", fsInfo: { disks: null } });
    expect((await launcher.call("GetUsers", {})).guestUserListResponse).toBe("[]");
    expect(await launcher.getFilesystems()).toEqual({ items: [] });

    await launcher.syncVirtualMachine(vmi);
    fake.setAgentConnected("default_testvmi", true);
    const poller = new AgentPoller({
      connection: fake,
      domainName: "default_testvmi",
      store: agentStore,
      log: silentLogger,
    });
    await poller.pollOnce();
    const info = await launcher.getGuestInfo();
    expect(info).toMatchObject({
      guestAgentVersion: "7.2.0",
      hostname: "testvmi",
      os: { prettyName: "Debian GNU/Linux 12 (bookworm)" },
      timezone: "UTC, 0",
      fsFreezeStatus: "thawed",
      fsInfo: { disks: [{ diskName: "vda1", mountPoint: "/", disk: [{ busType: "virtio" }] }] },
    });
    expect(await launcher.getUsers()).toEqual({
      items: [{ userName: "root", domain: "", loginTime: 1_700_000_000.123 }],
    });
    expect((await launcher.getFilesystems()).items?.[0]?.totalBytes).toBe(10_737_418_240);
    const domain = await launcher.getDomain();
    expect(domain?.status.osInfo?.id).toBe("debian");
    expect(domain?.status.interfaces?.[0]?.interfaceName).toBe("eth0");
  });

  it("words libvirt's errors as upstream's FormatLibvirtError does", () => {
    expect(errorMessage(noSuchDomain("default_x"))).toBe(
      "LibvirtError(Code=42, Domain=10, Message='Domain not found: no domain with matching name 'default_x'')",
    );
    expect(errorMessage(new Error("plain"))).toBe("plain");
  });

  describe("live migration", () => {
    const migrating = {
      ...vmi,
      status: { ...vmi.status, migrationState: { migrationUid: "mig-1" } },
    };
    const request = (options: unknown) => ({
      vmi: { vmiJson: Buffer.from(JSON.stringify(migrating)) },
      options: Buffer.from(JSON.stringify(options)),
    });

    it("starts the migration with the handler's options and reports it in the domain's metadata", async () => {
      const { fake, manager } = testManager();
      const launcher = await serve(manager);
      await launcher.syncVirtualMachine(vmi);
      const started = await launcher.call(
        "MigrateVirtualMachine",
        request({ Bandwidth: "64Mi", ProgressTimeout: 150, CompletionTimeoutPerGiB: 150 }),
      );
      expect(started).toEqual({ success: true, message: "" });
      await expect.poll(() => fake.migrations.length).toBe(1);
      expect(fake.migrations[0]?.params.bandwidth).toBe(64);
      const domain = await launcher.getDomain();
      expect(domain?.spec.metadata?.kubeVirt.migration).toMatchObject({ uid: "mig-1", mode: "PreCopy" });
      fake.finishMigration();
      await manager.migrationSource.running;
      expect((await launcher.getDomain())?.spec.metadata?.kubeVirt.migration).toMatchObject({
        uid: "mig-1",
        endTimestamp: expect.any(String),
      });
    });

    it("refuses options that do not parse, and a cancel when nothing migrates", async () => {
      const { manager } = testManager();
      const launcher = await serve(manager);
      await launcher.syncVirtualMachine(vmi);
      const refused = await launcher.call("MigrateVirtualMachine", request({ ProgressTimeout: "soon" }));
      expect(refused.success).toBe(false);
      expect(refused.message).toMatch(/invalid migration options: .*ProgressTimeout/s);
      const cancel = await launcher.call("CancelVirtualMachineMigration", {
        vmi: { vmiJson: Buffer.from(JSON.stringify(migrating)) },
      });
      expect(cancel).toEqual({
        success: false,
        message: "failed to cancel migration - vmi is not migrating",
      });
    });

    it("prepares a migration target without defining a domain", async () => {
      const { fake, manager, metadata } = testManager(
        layoutUnder(mkdtempSync(join(tmpdir(), "kvts-target-"))),
      );
      const launcher = await serve(manager);
      const prepared = await launcher.call("SyncMigrationTarget", {
        vmi: { vmiJson: Buffer.from(JSON.stringify(migrating)) },
      });
      expect(prepared).toEqual({ success: true, message: "" });
      expect(fake.domains.size).toBe(0);
      expect(metadata.loadMigration()).toMatchObject({ uid: "mig-1", mode: "PreCopy" });
      const finalized = await launcher.call("FinalizeVirtualMachineMigration", {
        vmi: { vmiJson: Buffer.from(JSON.stringify(migrating)) },
      });
      expect(finalized).toEqual({ success: true, message: "" });
    });
  });
});
