import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Disk, VirtualMachineInstance, Volume, VolumeStatus } from "../../api/generated/v1.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import { compactXML, defaultedVMI } from "./converter/testing.js";
import { layoutUnder } from "../layout.js";
import { testManager as setup } from "./testing/test-manager.js";
import { silentLogger } from "../../controller/log.js";
import { AgentPoller } from "./agent-poller/agent-poller.js";

const DOMAIN = "default_testvmi";

function testVMI(spec: Partial<VirtualMachineInstance["spec"]> = {}): VirtualMachineInstance {
  return defaultedVMI({
    domain: { devices: { autoattachPodInterface: false }, resources: { requests: { memory: "64Mi" } } },
    terminationGracePeriodSeconds: 45,
    ...spec,
  });
}

describe("LibvirtDomainManager.syncVMI", () => {
  it("defines and starts the domain once; a second sync changes nothing", async () => {
    const { fake, preparation, metadata, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    await manager.syncVMI(testVMI(), true, null);
    expect(fake.calls.filter((call) => !call.startsWith("lookup"))).toEqual([
      `define ${DOMAIN}`,
      `create ${DOMAIN} flags=0`,
    ]);
    expect(preparation.steps).toEqual(["inputs", "beforeDefine", "beforeStart", "inputs"]);
    expect(fake.domains.get(DOMAIN)?.state).toBe(libvirt.VIR_DOMAIN_RUNNING);
    expect(metadata.load()).toEqual({
      uid: testVMI().metadata?.uid,
      gracePeriod: { deletionGracePeriodSeconds: 45 },
    });
  });

  it("defines a TCG domain from the VMI when emulation is allowed", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    expect(fake.domains.get(DOMAIN)?.xml).toMatch(/<domain type="qemu"/);
  });

  it("chooses each disk's cache and I/O mode before defining it: a Block claim gets none and native", async () => {
    const { fake, manager, preparation, diskModeProbes } = setup();
    preparation.blockVolumes = new Set(["data"]);
    const vmi = testVMI({
      domain: {
        devices: {
          autoattachPodInterface: false,
          disks: [
            { name: "data", disk: { bus: "virtio" } },
            { name: "scratch", disk: { bus: "virtio" } },
          ],
        },
        resources: { requests: { memory: "64Mi" } },
      },
      volumes: [
        { name: "data", persistentVolumeClaim: { claimName: "data" } },
        { name: "scratch", emptyDisk: { capacity: "1Gi" } },
      ],
    });
    await manager.syncVMI(vmi, true, null);
    const xml = fake.domains.get(DOMAIN)?.xml ?? "";
    expect(xml).toContain('<driver cache="none" error_policy="stop" io="native" name="qemu" type="raw"');
    expect(xml).toContain('<driver cache="none" error_policy="stop" name="qemu" type="qcow2"');
    expect(diskModeProbes.probed).toEqual([
      "/dev/data",
      "/var/run/libvirt/empty-disks/scratch.qcow2",
      "allocation /var/run/libvirt/empty-disks/scratch.qcow2",
    ]);
  });

  it("refuses to run without KVM when emulation is not allowed, and defines nothing", async () => {
    const { fake, manager } = setup();
    await expect(manager.syncVMI(testVMI(), false, null)).rejects.toThrow(
      "kvm not present and emulation is not allowed",
    );
    expect(fake.domains.size).toBe(0);
  });

  it("starts a VMI with startStrategy Paused paused, and a later sync keeps it paused", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI({ startStrategy: "Paused" }), true, null);
    await manager.syncVMI(testVMI({ startStrategy: "Paused" }), true, null);
    expect(fake.calls).toContain(`create ${DOMAIN} flags=${libvirt.VIR_DOMAIN_START_PAUSED}`);
    expect(fake.calls).not.toContain(`resume ${DOMAIN}`);
  });

  it("resumes a domain that paused without being asked to", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    fake.setState(DOMAIN, libvirt.VIR_DOMAIN_PAUSED, libvirt.VIR_DOMAIN_PAUSED_IOERROR);
    await manager.syncVMI(testVMI(), true, null);
    expect(fake.calls).toContain(`resume ${DOMAIN}`);
  });

  it("does not start a domain again once the VMI is final", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    fake.powerOff(DOMAIN);
    const finished = { ...testVMI(), status: { phase: "Succeeded" as const } };
    await manager.syncVMI(finished, true, null);
    expect(fake.calls.filter((call) => call.startsWith("create"))).toHaveLength(1);
  });
});

describe("LibvirtDomainManager and hotplugged disks", () => {
  let base: string;
  let hotplugDir: string;

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), "manager-hotplug-"));
    hotplugDir = join(base, "share", "hotplug-disks");
    mkdirSync(hotplugDir, { recursive: true });
  });

  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const AFFECT_LIVE_AND_CONFIG = libvirt.VIR_DOMAIN_AFFECT_LIVE | libvirt.VIR_DOMAIN_AFFECT_CONFIG;

  /**
   * The running VMI: an emptyDisk from the start, and with `hotplug` a hotplugged claim `hp` on `bus`, in the
   * phase virt-handler gave it. Every volume has a status, as virt-controller writes one for each.
   */
  function vmiWith(hotplug?: { phase: string; bus?: string; serial?: string }): VirtualMachineInstance {
    const disks: Disk[] = [{ name: "scratch", disk: { bus: "virtio" } }];
    const volumes: Volume[] = [{ name: "scratch", emptyDisk: { capacity: "1Gi" } }];
    const volumeStatus: VolumeStatus[] = [{ name: "scratch", target: "vda" }];
    if (hotplug) {
      const { phase, bus = "scsi", serial } = hotplug;
      disks.push({ name: "hp", disk: { bus }, ...(serial ? { serial } : {}) });
      volumes.push({ name: "hp", persistentVolumeClaim: { claimName: "hp-claim", hotpluggable: true } });
      volumeStatus.push({
        name: "hp",
        target: "",
        phase,
        hotplugVolume: { attachPodName: "hp-volume-x", attachPodUID: "u2" },
      });
    }
    const vmi = testVMI({
      domain: {
        devices: { autoattachPodInterface: false, disks },
        resources: { requests: { memory: "64Mi" } },
      },
      volumes,
    });
    vmi.status = { volumeStatus };
    return vmi;
  }
  const withHotplug = (phase = "MountedToPod", bus = "scsi", serial?: string) =>
    vmiWith({ phase, bus, ...(serial ? { serial } : {}) });

  /** What virt-handler does for a Filesystem claim: disk.img shows up as <volume>.img. */
  const handOver = (volume = "hp") => writeFileSync(join(hotplugDir, `${volume}.img`), Buffer.alloc(4096));

  async function running() {
    const test = setup(layoutUnder(base));
    await test.manager.syncVMI(vmiWith(), true, null);
    return test;
  }

  it("attaches a disk whose image is handed over, live and in the definition, and GetDomain shows it", async () => {
    const { fake, manager, diskModeProbes } = await running();
    handOver();
    diskModeProbes.probed.length = 0;
    await manager.syncVMI(withHotplug(), true, null);
    expect(fake.deviceCalls).toHaveLength(1);
    const [call] = fake.deviceCalls;
    expect(call).toMatchObject({ op: "attach", domain: DOMAIN, flags: AFFECT_LIVE_AND_CONFIG });
    expect(compactXML(call?.xml ?? "")).toBe(
      `<disk device="disk" type="file"><source file="${hotplugDir}/hp.img"/><target bus="scsi" dev="sda"/>` +
        '<driver cache="none" error_policy="stop" name="qemu" type="raw" discard="unmap"/>' +
        '<alias name="ua-hp"/><address type="drive" bus="0" controller="0" unit="0"/></disk>',
    );
    // The cache and I/O modes were chosen for the new disk, as for the ones defined at start.
    expect(diskModeProbes.probed).toEqual([`${hotplugDir}/hp.img`, `allocation ${hotplugDir}/hp.img`]);
    const [domain] = await manager.listAllDomains();
    expect(domain?.spec.devices.disks).toHaveLength(2);
    expect(domain?.spec.devices.disks).toContainEqual(
      expect.objectContaining({
        type: "file",
        source: { file: `${hotplugDir}/hp.img` },
        target: { bus: "scsi", device: "sda" },
        alias: { name: "hp", userDefined: true },
      }),
    );
  });

  it("does nothing more on a repeated sync", async () => {
    const { fake, manager } = await running();
    handOver();
    await manager.syncVMI(withHotplug(), true, null);
    await manager.syncVMI(withHotplug("Ready"), true, null);
    await manager.syncVMI(withHotplug("Ready"), true, null);
    expect(fake.calls.filter((call) => /^(attach|detach|define|create)/.test(call))).toEqual([
      `define ${DOMAIN}`,
      `create ${DOMAIN} flags=0`,
      `attach ${DOMAIN} flags=${AFFECT_LIVE_AND_CONFIG}`,
    ]);
  });

  it("waits for the image to be handed over, then attaches it", async () => {
    const { fake, manager } = await running();
    await manager.syncVMI(withHotplug(), true, null);
    expect(fake.deviceCalls).toEqual([]);
    handOver();
    await manager.syncVMI(withHotplug(), true, null);
    expect(fake.deviceCalls.map(({ op }) => op)).toEqual(["attach"]);
  });

  it("does not attach a volume virt-handler has not marked mounted in the pod", async () => {
    const { fake, manager } = await running();
    handOver();
    await manager.syncVMI(withHotplug("AttachedToNode"), true, null);
    expect(fake.deviceCalls).toEqual([]);
  });

  it("detaches a disk whose volume left the VMI, by its target and alias", async () => {
    const { fake, manager } = await running();
    handOver();
    await manager.syncVMI(withHotplug(), true, null);
    // The volume's status stays until virt-handler has unmounted it.
    const unplugged = vmiWith();
    unplugged.status = withHotplug("Ready").status;
    await manager.syncVMI(unplugged, true, null);
    await manager.syncVMI(unplugged, true, null);
    expect(fake.deviceCalls.map(({ op }) => op)).toEqual(["attach", "detach"]);
    const detach = compactXML(fake.deviceCalls[1]?.xml ?? "");
    expect(detach).toContain('<target bus="scsi" dev="sda"/>');
    expect(detach).toContain('<alias name="ua-hp"/>');
    expect(fake.deviceCalls[1]?.flags).toBe(AFFECT_LIVE_AND_CONFIG);
    const [domain] = await manager.listAllDomains();
    expect(domain?.spec.devices.disks?.map((disk) => disk.alias?.name)).toEqual(["scratch"]);
  });

  it("attaches a Block claim's device node, read-only openable, as a block disk", async () => {
    const { fake, manager, preparation } = await running();
    // A character device stands in for the block device node virt-handler would make.
    symlinkSync("/dev/null", join(hotplugDir, "hp"));
    preparation.blockVolumes = new Set(["hp"]);
    await manager.syncVMI(withHotplug("MountedToPod", "virtio"), true, null);
    const xml = compactXML(fake.deviceCalls[0]?.xml ?? "");
    expect(xml).toContain(
      `<disk device="disk" type="block" model="virtio-non-transitional"><source dev="${hotplugDir}/hp"/>`,
    );
    expect(xml).toContain('<target bus="virtio" dev="vdb"/>');
    expect(xml).toContain('io="native"');
  });

  it("lowercases a serial in the attached XML, as upstream's marshalling does", async () => {
    const { fake, manager } = await running();
    handOver();
    await manager.syncVMI(withHotplug("MountedToPod", "scsi", "HP-Disk-1"), true, null);
    expect(fake.deviceCalls[0]?.xml).toContain("<serial>hp-disk-1</serial>");
  });

  it("leaves disks that were not hotplugged alone", async () => {
    const { fake, manager } = await running();
    const withSecond = vmiWith();
    withSecond.spec.domain.devices.disks?.push({ name: "scratch2", disk: { bus: "scsi" } });
    withSecond.spec.volumes?.push({ name: "scratch2", emptyDisk: { capacity: "1Gi" } });
    withSecond.status?.volumeStatus?.push({ name: "scratch2", target: "" });
    await manager.syncVMI(withSecond, true, null);
    await manager.syncVMI(testVMI(), true, null);
    expect(fake.deviceCalls).toEqual([]);
  });

  it("fails the sync when a stopped domain would need a disk plugged, as libvirt refuses it", async () => {
    const { fake, manager } = await running();
    handOver();
    fake.powerOff(DOMAIN);
    const finished = { ...withHotplug(), status: { ...withHotplug().status, phase: "Succeeded" as const } };
    await expect(manager.syncVMI(finished, true, null)).rejects.toMatchObject({
      code: libvirt.VIR_ERR_OPERATION_INVALID,
    });
  });
});

describe("LibvirtDomainManager lifecycle commands", () => {
  it("pauses a running domain and unpauses it; sync leaves a paused-on-purpose domain alone", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    await manager.pauseVMI(testVMI());
    await manager.syncVMI(testVMI(), true, null);
    expect(fake.domains.get(DOMAIN)?.state).toBe(libvirt.VIR_DOMAIN_PAUSED);
    await manager.unpauseVMI(testVMI());
    expect(fake.domains.get(DOMAIN)?.state).toBe(libvirt.VIR_DOMAIN_RUNNING);
  });

  it("answers pause of a missing domain as upstream does", async () => {
    const { manager } = setup();
    await expect(manager.pauseVMI(testVMI())).rejects.toThrow("Domain not found.");
  });

  it("presses the ACPI button of a running domain and records when", async () => {
    const { fake, metadata, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    await manager.signalShutdownVMI(testVMI());
    expect(fake.calls).toContain(`shutdown ${DOMAIN} flags=${libvirt.VIR_DOMAIN_SHUTDOWN_DEFAULT}`);
    expect(metadata.load().gracePeriod?.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it("leaves a stopped or missing domain alone on shutdown and kill", async () => {
    const { fake, manager } = setup();
    await manager.signalShutdownVMI(testVMI());
    await manager.killVMI(testVMI());
    await manager.syncVMI(testVMI(), true, null);
    fake.powerOff(DOMAIN);
    await manager.signalShutdownVMI(testVMI());
    await manager.killVMI(testVMI());
    expect(fake.calls.filter((call) => /^(shutdown|destroy)/.test(call))).toEqual([]);
  });

  it("kills a running domain gracefully (SIGTERM through libvirt)", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    await manager.killVMI(testVMI());
    expect(fake.calls).toContain(`destroy ${DOMAIN} flags=${libvirt.VIR_DOMAIN_DESTROY_GRACEFUL}`);
  });

  it("undefines the domain on delete, keeping NVRAM and checkpoint metadata flags as upstream", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    fake.powerOff(DOMAIN);
    await manager.deleteVMI(testVMI());
    await manager.deleteVMI(testVMI());
    const flags = libvirt.VIR_DOMAIN_UNDEFINE_KEEP_NVRAM | libvirt.VIR_DOMAIN_UNDEFINE_CHECKPOINTS_METADATA;
    expect(fake.calls.filter((call) => call.startsWith("undefine"))).toEqual([
      `undefine ${DOMAIN} flags=${flags}`,
    ]);
  });

  it("soft-reboots with the ACPI button without an agent, and refuses when ACPI is off too", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    await manager.softRebootVMI(testVMI());
    expect(fake.calls).toContain(`reboot ${DOMAIN} flags=${libvirt.VIR_DOMAIN_REBOOT_ACPI_POWER_BTN}`);
    const noAcpi = testVMI();
    noAcpi.spec.domain.features = { acpi: { enabled: false } };
    await expect(manager.softRebootVMI(noAcpi)).rejects.toThrow(
      "VMI neither have the agent connected nor the ACPI feature enabled",
    );
  });

  it("resets the domain with the reset button, in the same domain", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    await manager.resetVMI(testVMI());
    expect(fake.calls.filter((call) => !call.startsWith("lookup")).slice(-1)).toEqual([`reset ${DOMAIN}`]);
    expect(fake.domains.get(DOMAIN)?.state).toBe(libvirt.VIR_DOMAIN_RUNNING);
  });

  it("soft-reboots through the agent when it is connected", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    const withAgent = testVMI();
    withAgent.status = { conditions: [{ type: "AgentConnected", status: "True" }] };
    withAgent.spec.domain.features = { acpi: { enabled: false } };
    await manager.softRebootVMI(withAgent);
    expect(fake.calls).toContain(`reboot ${DOMAIN} flags=${libvirt.VIR_DOMAIN_REBOOT_GUEST_AGENT}`);
  });

  it("freezes through the agent, skips a frozen guest, and thaws", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    fake.agent.connected = true;
    await manager.freezeVMI(testVMI(), 0);
    await manager.freezeVMI(testVMI(), 0);
    expect(fake.calls.filter((call) => call.startsWith("fs"))).toEqual([`fsfreeze ${DOMAIN}`]);
    expect(fake.agent.state.fsFreezeStatus).toBe("frozen");
    await manager.unfreezeVMI(testVMI());
    await manager.unfreezeVMI(testVMI());
    expect(fake.calls.filter((call) => call.startsWith("fs"))).toEqual([
      `fsfreeze ${DOMAIN}`,
      `fsthaw ${DOMAIN}`,
    ]);
  });

  it("refuses freeze without a guest agent with libvirt's error, and freezes nothing", async () => {
    const { fake, manager } = setup();
    await manager.syncVMI(testVMI(), true, null);
    await expect(manager.freezeVMI(testVMI(), 300)).rejects.toMatchObject({
      code: libvirt.VIR_ERR_AGENT_UNRESPONSIVE,
      message: "Guest agent is not responding: QEMU guest agent is not connected",
    });
    expect(fake.calls.filter((call) => call.startsWith("fs"))).toEqual([]);
    // The status query failing does not stop an unfreeze from trying the thaw, as upstream.
    await expect(manager.unfreezeVMI(testVMI())).rejects.toMatchObject({
      code: libvirt.VIR_ERR_AGENT_UNRESPONSIVE,
    });
    expect(fake.calls.filter((call) => call.startsWith("fs"))).toEqual([`fsthaw ${DOMAIN}`]);
  });

  it("lists the domain with its state and KubeVirt metadata", async () => {
    const { manager } = setup();
    expect(await manager.listAllDomains()).toEqual([]);
    await manager.syncVMI(testVMI(), true, null);
    const [domain] = await manager.listAllDomains();
    expect(domain?.objectMeta).toEqual({
      name: "testvmi",
      namespace: "default",
      uid: testVMI().metadata?.uid,
    });
    expect(domain?.status).toEqual({ status: "Running", reason: "Unknown" });
    expect(domain?.spec.name).toBe(DOMAIN);
    expect(domain?.spec.metadata?.kubeVirt.gracePeriod?.deletionGracePeriodSeconds).toBe(45);
  });

  it("formats QEMU's version as major.minor.release", async () => {
    expect(await setup().manager.getQemuVersion()).toBe("7.2.0");
  });
});

describe("LibvirtDomainManager and the guest agent", () => {
  /** A running guest whose agent connected, its data read once by the poller. */
  async function withAgent() {
    const test = setup();
    await test.manager.syncVMI(testVMI(), true, null);
    test.fake.setAgentConnected(DOMAIN, true);
    const poller = new AgentPoller({
      connection: test.fake,
      domainName: DOMAIN,
      store: test.agentStore,
      log: silentLogger,
    });
    await poller.pollOnce();
    return test;
  }

  it("answers empty before the agent said anything, as upstream's zero values", () => {
    const { manager } = setup();
    expect(manager.getGuestInfo()).toEqual({
      guestAgentVersion: "",
      supportedCommands: [],
      hostname: "",
      fsFreezeStatus: "",
      os: {
        name: "",
        kernelRelease: "",
        version: "",
        prettyName: "",
        versionId: "",
        kernelVersion: "",
        machine: "",
        id: "",
      },
      timezone: ", 0",
      fsInfo: { disks: null },
    });
    expect(manager.getUsers()).toEqual([]);
    expect(manager.getFilesystems()).toEqual([]);
  });

  it("gathers the agent's data for GetGuestInfo, GetUsers and GetFilesystems", async () => {
    const { manager } = await withAgent();
    const info = manager.getGuestInfo();
    expect(info).toMatchObject({
      guestAgentVersion: "7.2.0",
      hostname: "testvmi",
      fsFreezeStatus: "thawed",
      os: { name: "Debian GNU/Linux", versionId: "12", id: "debian", machine: "x86_64" },
      timezone: "UTC, 0",
      userList: [{ userName: "root", domain: "", loginTime: 1_700_000_000.123 }],
    });
    expect(info.supportedCommands).toContainEqual({ name: "guest-get-users", enabled: true });
    const filesystem = {
      diskName: "vda1",
      mountPoint: "/",
      fileSystemType: "ext4",
      usedBytes: 5_368_709_120,
      totalBytes: 10_737_418_240,
      disk: [{ serial: "containerdisk", busType: "virtio" }],
    };
    expect(info.fsInfo).toEqual({ disks: [filesystem] });
    expect(manager.getUsers()).toEqual(info.userList);
    expect(manager.getFilesystems()).toEqual([filesystem]);
  });

  it("lists at most 10 users and filesystems in the guest info, all of them on their own", async () => {
    const { fake, manager, agentStore } = await withAgent();
    fake.agent.state.users = Array.from({ length: 12 }, (_, i) => ({ user: `u${i}`, "login-time": i }));
    const poller = new AgentPoller({
      connection: fake,
      domainName: DOMAIN,
      store: agentStore,
      log: silentLogger,
    });
    await poller.pollOnce();
    expect(manager.getGuestInfo().userList).toHaveLength(10);
    expect(manager.getUsers()).toHaveLength(12);
  });

  it("reports the agent's OS, interfaces and freeze status, and the connected channel, with the domain", async () => {
    const { manager } = await withAgent();
    const [domain] = await manager.listAllDomains();
    expect(domain?.status).toMatchObject({
      status: "Running",
      osInfo: { name: "Debian GNU/Linux", id: "debian" },
      interfaces: [{ mac: "02:00:00:aa:bb:cc", ip: "10.0.2.2", interfaceName: "eth0" }],
      fsFreezeStatus: "thawed",
    });
    expect(domain?.spec.devices.channels?.[0]?.target).toMatchObject({
      name: "org.qemu.guest_agent.0",
      state: "connected",
    });
  });
});
