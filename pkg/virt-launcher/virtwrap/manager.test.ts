import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import { defaultedVMI } from "./converter/testing.js";
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
