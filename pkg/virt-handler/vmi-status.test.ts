import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { SYNC_FAILED_REASON, computeStatus, statusPatch, type GuestAgentReport } from "./vmi-status.js";
import {
  ATTACHNET1_POD_IFACE,
  ATTACHNET2_POD_IFACE,
  podAndTwoBridgeNetworks,
} from "../network/testing/multus-fixture.js";

const vmi = (status: VirtualMachineInstance["status"]): VirtualMachineInstance => ({
  metadata: { name: "testvmi", namespace: "default", resourceVersion: "42" },
  spec: { domain: { devices: {} } },
  status,
});

const runningDomain = {
  objectMeta: { name: "default_testvmi", namespace: "default" },
  spec: {
    devices: {
      interfaces: [
        {
          type: "ethernet",
          mac: { mac: "02:00:00:aa:bb:cc" },
          alias: { name: "default", userDefined: true },
        },
      ],
    },
  },
  status: {
    status: "Running",
    reason: "Unknown",
    interfaces: [{ mac: "02:00:00:AA:BB:CC", ip: "10.0.2.2", ips: ["10.0.2.2"], interfaceName: "eth0" }],
  },
} as unknown as DomainObject;

describe("VMI status from the launcher", () => {
  it("reports Running with the interface named by its alias and what the guest agent saw for its MAC", () => {
    expect(computeStatus(vmi({ phase: "Scheduled" }), runningDomain, false)).toEqual({
      phase: "Running",
      phaseTransitionTimestamps: [{ phase: "Running", phaseTransitionTimestamp: "1970-01-01T00:00:00Z" }],
      interfaces: [
        {
          name: "default",
          mac: "02:00:00:aa:bb:cc",
          ipAddress: "10.0.2.2",
          ipAddresses: ["10.0.2.2"],
          interfaceName: "eth0",
          infoSource: "domain, guest-agent",
        },
      ],
      conditions: [],
      selinuxContext: "none",
    });
  });

  it("reports the pod IPs the network setup cached over the agent's of the same family, and keeps the pod interface name", () => {
    const before = vmi({ phase: "Scheduled", interfaces: [{ name: "default", podInterfaceName: "eth0" }] });
    const podIPs = new Map([["default", { podIP: "10.244.2.7", podIPs: ["10.244.2.7"] }]]);
    expect(computeStatus(before, runningDomain, false, undefined, podIPs).interfaces).toEqual([
      {
        name: "default",
        podInterfaceName: "eth0",
        mac: "02:00:00:aa:bb:cc",
        ipAddress: "10.244.2.7",
        ipAddresses: ["10.244.2.7"],
        interfaceName: "eth0",
        infoSource: "domain, guest-agent",
      },
    ]);
  });

  it("merges the multus source and keeps the pod interface names virt-controller reported, pod network first", () => {
    const layout = podAndTwoBridgeNetworks();
    const nic = (name: string, mac: string) => ({
      type: "ethernet",
      mac: { mac },
      alias: { name, userDefined: true },
    });
    // The domain lists a secondary interface before the pod network's; the agent knows two of them.
    const domain = {
      ...runningDomain,
      spec: {
        devices: {
          interfaces: [
            nic("attachnet1", "02:00:00:00:00:01"),
            nic("default", "02:00:00:aa:bb:cc"),
            nic("attachnet2", "02:00:00:00:00:02"),
          ],
        },
      },
      status: {
        status: "Running",
        reason: "Unknown",
        interfaces: [
          { mac: "02:00:00:aa:bb:cc", ip: "10.0.2.2", ips: ["10.0.2.2"], interfaceName: "eth0" },
          { mac: "02:00:00:00:00:01", ip: "192.168.10.2", ips: ["192.168.10.2"], interfaceName: "eth1" },
        ],
      },
    } as unknown as DomainObject;
    const before: VirtualMachineInstance = {
      ...vmi({
        phase: "Running",
        interfaces: [
          { name: "default", podInterfaceName: "eth0" },
          { name: "attachnet1", infoSource: "multus-status", podInterfaceName: ATTACHNET1_POD_IFACE },
          { name: "attachnet2", infoSource: "multus-status", podInterfaceName: ATTACHNET2_POD_IFACE },
        ],
      }),
      spec: { domain: { devices: { interfaces: layout.interfaces } }, networks: layout.networks },
    };
    const interfaces = computeStatus(before, domain, false).interfaces;
    expect(
      interfaces?.map(({ name, infoSource, podInterfaceName }) => ({ name, infoSource, podInterfaceName })),
    ).toEqual([
      { name: "default", infoSource: "domain, guest-agent", podInterfaceName: "eth0" },
      {
        name: "attachnet1",
        infoSource: "domain, guest-agent, multus-status",
        podInterfaceName: ATTACHNET1_POD_IFACE,
      },
      { name: "attachnet2", infoSource: "domain, multus-status", podInterfaceName: ATTACHNET2_POD_IFACE },
    ]);
    expect(interfaces?.[1]).toMatchObject({ interfaceName: "eth1", ipAddress: "192.168.10.2" });
  });

  it("lists a multus interface the domain does not have yet, and a pod network entry it dropped", () => {
    const before: VirtualMachineInstance = {
      ...vmi({
        phase: "Running",
        interfaces: [
          { name: "default", podInterfaceName: "eth0", ipAddress: "10.0.2.2" },
          { name: "attachnet1", infoSource: "multus-status", podInterfaceName: ATTACHNET1_POD_IFACE },
        ],
      }),
      spec: {
        domain: {
          devices: {
            interfaces: [
              { name: "default", masquerade: {} },
              { name: "attachnet1", bridge: {} },
            ],
          },
        },
        networks: [
          { name: "default", pod: {} },
          { name: "attachnet1", multus: { networkName: "attachnet1" } },
        ],
      },
    };
    const empty = {
      ...runningDomain,
      spec: { devices: {} },
      status: { status: "Running", reason: "Unknown" },
    };
    expect(computeStatus(before, empty as unknown as DomainObject, false).interfaces).toEqual([
      { name: "default", podInterfaceName: "eth0" },
      { name: "attachnet1", infoSource: "multus-status", podInterfaceName: ATTACHNET1_POD_IFACE },
    ]);
  });

  it("patches only what changed, guarded by the resourceVersion read", () => {
    const desired = computeStatus(vmi({ phase: "Scheduled" }), runningDomain, false);
    expect(statusPatch(vmi({ phase: "Scheduled" }), desired)).toEqual({
      metadata: { resourceVersion: "42" },
      status: {
        phase: "Running",
        phaseTransitionTimestamps: desired.phaseTransitionTimestamps,
        interfaces: desired.interfaces,
        selinuxContext: "none",
      },
    });
    const written = vmi({
      phase: "Running",
      phaseTransitionTimestamps: desired.phaseTransitionTimestamps,
      interfaces: desired.interfaces,
      selinuxContext: "none",
    });
    expect(statusPatch(written, desired)).toBeUndefined();
  });

  it("fails a scheduled VMI whose launcher stopped answering before it had a domain", () => {
    const desired = computeStatus(vmi({ phase: "Scheduled" }), undefined, true);
    expect(statusPatch(vmi({ phase: "Scheduled" }), desired)).toEqual({
      metadata: { resourceVersion: "42" },
      status: {
        phase: "Failed",
        phaseTransitionTimestamps: [{ phase: "Failed", phaseTransitionTimestamp: "1970-01-01T00:00:00Z" }],
      },
    });
  });

  it("records the first entry into a phase only (upstream's SetVMIPhaseTransitionTimestamp)", () => {
    const scheduled = { phase: "Scheduled", phaseTransitionTimestamp: "2026-11-30T11:59:00Z" };
    const nowMs = Date.parse("2026-11-30T12:00:00Z");
    const running = computeStatus(
      vmi({ phase: "Scheduled", phaseTransitionTimestamps: [scheduled] }),
      runningDomain,
      false,
      undefined,
      new Map(),
      nowMs,
    );
    expect(running.phaseTransitionTimestamps).toEqual([
      scheduled,
      { phase: "Running", phaseTransitionTimestamp: "2026-11-30T12:00:00Z" },
    ]);
    const again = computeStatus(
      vmi({ phase: "Running", phaseTransitionTimestamps: running.phaseTransitionTimestamps }),
      runningDomain,
      false,
      undefined,
      new Map(),
      nowMs + 60_000,
    );
    expect(again.phaseTransitionTimestamps).toEqual(running.phaseTransitionTimestamps);
  });

  it("sets Synchronized=False with upstream's reason on a failed sync, keeping other conditions", () => {
    const ready = { type: "Ready", status: "False", reason: "GuestNotRunning" };
    const failure = {
      message: "failed to configure vmi network: boom",
      nowMs: Date.parse("2026-11-30T12:00:00Z"),
    };
    const desired = computeStatus(
      vmi({ phase: "Scheduled", conditions: [ready] }),
      undefined,
      false,
      failure,
    );
    expect(statusPatch(vmi({ phase: "Scheduled", conditions: [ready] }), desired)).toEqual({
      metadata: { resourceVersion: "42" },
      status: {
        conditions: [
          ready,
          {
            type: "Synchronized",
            status: "False",
            reason: SYNC_FAILED_REASON,
            message: "failed to configure vmi network: boom",
            lastTransitionTime: "2026-11-30T12:00:00Z",
          },
        ],
      },
    });
  });

  it("keeps the first failure's condition while the sync keeps failing, and drops it once it succeeds", () => {
    const failing = computeStatus(vmi({ phase: "Scheduled" }), undefined, false, {
      message: "one",
      nowMs: 0,
    });
    const failed = vmi({ phase: "Scheduled", conditions: failing.conditions });
    const again = computeStatus(failed, undefined, false, { message: "two", nowMs: 1_000 });
    expect(statusPatch(failed, again)).toBeUndefined();
    expect(statusPatch(failed, computeStatus(failed, undefined, false))).toEqual({
      metadata: { resourceVersion: "42" },
      status: { conditions: [] },
    });
  });
});

describe("the Paused condition follows the domain (upstream's updatePausedConditions)", () => {
  const NOW = Date.parse("2026-01-02T03:04:05Z");
  const pausedDomain = (reason: string) =>
    ({ ...runningDomain, status: { ...runningDomain.status, status: "Paused", reason } }) as DomainObject;
  const byUser = {
    type: "Paused",
    status: "True",
    lastProbeTime: "2026-01-02T03:04:05Z",
    lastTransitionTime: "2026-01-02T03:04:05Z",
    reason: "PausedByUser",
    message: "VMI was paused by user",
  };

  it("a domain paused by the user: Paused True, PausedByUser, and the phase stays Running", () => {
    const status = computeStatus(
      vmi({ phase: "Running" }),
      pausedDomain("User"),
      false,
      undefined,
      new Map(),
      NOW,
    );
    expect(status.phase).toBe("Running");
    expect(status.conditions).toEqual([byUser]);
  });

  it("an IO error pause has its own reason", () => {
    const status = computeStatus(
      vmi({ phase: "Running" }),
      pausedDomain("IOError"),
      false,
      undefined,
      new Map(),
      NOW,
    );
    expect(status.conditions).toMatchObject([
      { type: "Paused", reason: "PausedIOError", message: "VMI was paused, low-level IO error detected" },
    ]);
  });

  it("a condition already there keeps its times", () => {
    const earlier = { ...byUser, lastTransitionTime: "2025-01-01T00:00:00Z" };
    const status = computeStatus(
      vmi({ phase: "Running", conditions: [earlier] }),
      pausedDomain("User"),
      false,
      undefined,
      new Map(),
      NOW,
    );
    expect(status.conditions).toEqual([earlier]);
  });

  it("a pause for another reason (a migration, a snapshot) gets no condition", () => {
    const status = computeStatus(
      vmi({ phase: "Running" }),
      pausedDomain("Migration"),
      false,
      undefined,
      new Map(),
      NOW,
    );
    expect(status.conditions).toEqual([]);
  });

  it("once the domain runs again the condition goes, and the status patch says so", () => {
    const paused = vmi({ phase: "Running", conditions: [byUser] });
    const status = computeStatus(paused, runningDomain, false, undefined, new Map(), NOW);
    expect(status.conditions).toEqual([]);
    expect(statusPatch(paused, status)).toMatchObject({ status: { conditions: [] } });
  });
});

describe("what the guest agent reports", () => {
  const AT = Date.parse("2026-05-01T10:00:00Z");
  const channel = (state: string) => ({
    type: "unix",
    target: { type: "virtio", name: "org.qemu.guest_agent.0", state },
  });
  const withAgent = (
    state: string,
    status: Partial<DomainObject["status"]> = {},
    interfaces = runningDomain.spec.devices.interfaces,
  ): DomainObject => ({
    ...runningDomain,
    spec: { ...runningDomain.spec, devices: { interfaces, channels: [channel(state)] } },
    status: { ...runningDomain.status, ...status },
  });
  const commands = (names: string[]) => names.map((name) => ({ name, enabled: true }));
  const REQUIRED = [
    "guest-ping",
    "guest-get-time",
    "guest-info",
    "guest-shutdown",
    "guest-network-get-interfaces",
    "guest-get-fsinfo",
    "guest-get-host-name",
    "guest-get-users",
    "guest-get-timezone",
    "guest-get-osinfo",
  ];
  const report = (info: GuestAgentReport["info"]): GuestAgentReport => ({
    info,
    supportedVersions: ["2.*", "3.*", "4.*", "5.*"],
  });
  const connected = {
    type: "AgentConnected",
    status: "True",
    lastProbeTime: "2026-05-01T10:00:00Z",
    lastTransitionTime: null,
  };

  it("AgentConnected while the agent channel is connected, set once with its probe time", () => {
    const running = vmi({ phase: "Running" });
    const status = computeStatus(running, withAgent("connected"), false, undefined, new Map(), AT);
    expect(status.conditions).toEqual([connected]);
    const later = computeStatus(
      vmi({ phase: "Running", conditions: [connected] }),
      withAgent("connected"),
      false,
      undefined,
      new Map(),
      AT + 60_000,
    );
    expect(later.conditions).toEqual([connected]);
    const gone = computeStatus(
      vmi({ phase: "Running", conditions: [connected] }),
      withAgent("disconnected"),
      false,
      undefined,
      new Map(),
      AT,
    );
    expect(gone.conditions).toEqual([]);
  });

  it.each<
    [
      string,
      GuestAgentReport["info"],
      VirtualMachineInstance["spec"]["accessCredentials"],
      string | undefined,
    ]
  >([
    ["an agent with every basic command", { supportedCommands: commands(REQUIRED) }, undefined, undefined],
    [
      "an agent missing a basic command",
      { supportedCommands: commands(REQUIRED.filter((name) => name !== "guest-shutdown")) },
      undefined,
      "This guest agent doesn't support required basic commands",
    ],
    [
      "an agent without the SSH key commands a credential needs",
      { supportedCommands: commands(REQUIRED) },
      [
        {
          sshPublicKey: {
            source: { secret: { secretName: "keys" } },
            propagationMethod: { qemuGuestAgent: { users: ["root"] } },
          },
        },
      ],
      "This guest agent doesn't support required public key commands",
    ],
    [
      "an old agent that writes the keys with file commands",
      {
        supportedCommands: commands([
          ...REQUIRED,
          "guest-exec-status",
          "guest-exec",
          "guest-file-open",
          "guest-file-close",
          "guest-file-read",
          "guest-file-write",
        ]),
      },
      [
        {
          sshPublicKey: {
            source: { secret: { secretName: "keys" } },
            propagationMethod: { qemuGuestAgent: { users: ["root"] } },
          },
        },
      ],
      undefined,
    ],
    [
      "an agent without the password command a credential needs",
      { supportedCommands: commands(REQUIRED) },
      [
        {
          userPassword: {
            source: { secret: { secretName: "pw" } },
            propagationMethod: { qemuGuestAgent: {} },
          },
        },
      ],
      "This guest agent doesn't support required password commands",
    ],
    ["a launcher listing no commands, agent 5.2", { guestAgentVersion: "5.2.0" }, undefined, undefined],
    [
      // Go's patterns are unanchored: "2.*" would even match 7.2.0
      "a launcher listing no commands, agent 1.0",
      { guestAgentVersion: "1.0" },
      undefined,
      "Guest agent version '1.0' is not supported",
    ],
  ])("%s", (_case, info, accessCredentials, unsupported) => {
    const running: VirtualMachineInstance = {
      ...vmi({ phase: "Running" }),
      spec: { domain: { devices: {} }, ...(accessCredentials ? { accessCredentials } : {}) },
    };
    const status = computeStatus(
      running,
      withAgent("connected"),
      false,
      undefined,
      new Map(),
      AT,
      report(info),
    );
    expect(status.conditions).toEqual([
      connected,
      ...(unsupported
        ? [
            {
              type: "AgentVersionNotSupported",
              status: "True",
              reason: unsupported,
              lastProbeTime: connected.lastProbeTime,
              lastTransitionTime: null,
            },
          ]
        : []),
    ]);
  });

  it("an unsupported agent that learned the commands loses the condition", () => {
    const unsupported = { type: "AgentVersionNotSupported", status: "True", reason: "old" };
    const status = computeStatus(
      vmi({ phase: "Running", conditions: [connected, unsupported] }),
      withAgent("connected"),
      false,
      undefined,
      new Map(),
      AT,
      report({ supportedCommands: commands(REQUIRED) }),
    );
    expect(status.conditions).toEqual([connected]);
  });

  const os = {
    name: "Debian GNU/Linux",
    kernelRelease: "6.1.0-18-amd64",
    version: "12 (bookworm)",
    prettyName: "Debian GNU/Linux 12 (bookworm)",
    versionId: "12",
    kernelVersion: "#1 SMP",
    machine: "x86_64",
    id: "",
  };

  it("takes the guest's OS over once the agent names one other than shown; empty fields stay out", () => {
    const status = computeStatus(vmi({ phase: "Running" }), withAgent("connected", { osInfo: os }), false);
    const { id: _id, ...shown } = os;
    expect(status.guestOSInfo).toEqual(shown);
    expect(statusPatch(vmi({ phase: "Running" }), status)).toMatchObject({ status: { guestOSInfo: shown } });
    const same = computeStatus(
      vmi({ phase: "Running", guestOSInfo: { name: os.name } }),
      withAgent("connected", { osInfo: { ...os, version: "13" } }),
      false,
    );
    expect(same.guestOSInfo).toBeUndefined();
  });

  it.each([
    ["frozen", undefined, "frozen"],
    ["thawed", "frozen", null],
    ["thawed", undefined, undefined],
    [undefined, "frozen", undefined],
  ])("freeze status %s reported, %s shown: patched to %s", (reported, shown, patched) => {
    const before = vmi({ phase: "Running", ...(shown ? { fsFreezeStatus: shown } : {}) });
    const status = computeStatus(
      before,
      withAgent("connected", reported ? { fsFreezeStatus: reported } : {}),
      false,
    );
    const patch = statusPatch(before, status) as { status?: Record<string, unknown> } | undefined;
    if (patched === undefined) expect(patch?.status ?? {}).not.toHaveProperty("fsFreezeStatus");
    else expect(patch?.status?.fsFreezeStatus).toBe(patched);
  });

  it("adds the guest's own interfaces, at most ten, as guest-agent; the domain's keep their source", () => {
    const guestOnly = Array.from({ length: 12 }, (_, i) => ({
      mac: `02:00:00:00:01:${String(i).padStart(2, "0")}`,
      ip: `10.1.0.${i}`,
      ips: [`10.1.0.${i}`],
      interfaceName: `veth${i}`,
    }));
    const status = computeStatus(
      vmi({ phase: "Running" }),
      withAgent("connected", { interfaces: guestOnly }),
      false,
    );
    expect(status.interfaces).toHaveLength(11);
    expect(status.interfaces?.[0]).toEqual({
      name: "default",
      mac: "02:00:00:aa:bb:cc",
      infoSource: "domain",
    });
    expect(status.interfaces?.[1]).toEqual({
      mac: "02:00:00:00:01:00",
      ipAddress: "10.1.0.0",
      ipAddresses: ["10.1.0.0"],
      interfaceName: "veth0",
      infoSource: "guest-agent",
    });
  });

  it("adds the agent's IPv6 addresses to the pod's IPv4 one, leaving out link-local ones behind masquerade", () => {
    const agent = [
      {
        mac: "02:00:00:aa:bb:cc",
        ip: "10.0.2.2",
        ips: ["10.0.2.2", "fd10:0:2::2", "fe80::ff:feaa:bbcc"],
        interfaceName: "eth0",
      },
    ];
    const podIPs = new Map([["default", { podIP: "10.244.2.7", podIPs: ["10.244.2.7"] }]]);
    const masquerade: VirtualMachineInstance = {
      ...vmi({ phase: "Running" }),
      spec: { domain: { devices: { interfaces: [{ name: "default", masquerade: {} }] } } },
    };
    const bridge: VirtualMachineInstance = {
      ...vmi({ phase: "Running" }),
      spec: { domain: { devices: { interfaces: [{ name: "default", bridge: {} }] } } },
    };
    const domain = withAgent("connected", { interfaces: agent });
    expect(computeStatus(masquerade, domain, false, undefined, podIPs).interfaces?.[0]).toMatchObject({
      ipAddress: "10.244.2.7",
      ipAddresses: ["10.244.2.7", "fd10:0:2::2"],
      infoSource: "domain, guest-agent",
    });
    expect(computeStatus(bridge, domain, false, undefined, podIPs).interfaces?.[0]?.ipAddresses).toEqual([
      "10.244.2.7",
      "fd10:0:2::2",
      "fe80::ff:feaa:bbcc",
    ]);
  });
});
