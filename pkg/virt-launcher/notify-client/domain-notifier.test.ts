import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../controller/log.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import { defaultedVMI } from "../virtwrap/converter/testing.js";
import { nonExistentDomain } from "../virtwrap/domain-reader.js";
import { MetadataCache } from "../virtwrap/metadata-cache.js";
import { testManager } from "../virtwrap/testing/test-manager.js";
import { AgentPoller } from "../virtwrap/agent-poller/agent-poller.js";
import { classify, DomainNotifier, isFinalEvent, isMigratedInEvent } from "./domain-notifier.js";
import { Notifier } from "./notifier.js";
import type { RecordingNotifyServer } from "./testing.js";
import { startRecordingNotifyServer } from "./testing.js";

const vmi = defaultedVMI({
  domain: { devices: { autoattachPodInterface: false }, resources: { requests: { memory: "64Mi" } } },
});

describe("classifying lifecycle events", () => {
  const gone = () => nonExistentDomain("default_testvmi", new MetadataCache());
  it.each([
    [libvirt.VIR_DOMAIN_EVENT_DEFINED, libvirt.VIR_DOMAIN_EVENT_DEFINED_ADDED, "ADDED"],
    [libvirt.VIR_DOMAIN_EVENT_DEFINED, libvirt.VIR_DOMAIN_EVENT_DEFINED_UPDATED, "MODIFIED"],
    [libvirt.VIR_DOMAIN_EVENT_STARTED, libvirt.VIR_DOMAIN_EVENT_STARTED_BOOTED, "MODIFIED"],
    [libvirt.VIR_DOMAIN_EVENT_STARTED, libvirt.VIR_DOMAIN_EVENT_STARTED_MIGRATED, "ADDED"],
    [libvirt.VIR_DOMAIN_EVENT_STOPPED, libvirt.VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN, "MODIFIED"],
  ])("event %i detail %i is %s", (event, detail, type) => {
    expect(classify(gone(), { event, detail }, new Date())).toBe(type);
  });

  it("marks the domain deleted when a final event finds it gone from libvirt", () => {
    const domain = gone();
    const event = {
      event: libvirt.VIR_DOMAIN_EVENT_UNDEFINED,
      detail: libvirt.VIR_DOMAIN_EVENT_UNDEFINED_REMOVED,
    };
    expect(classify(domain, event, new Date("2026-05-01T10:00:00.123Z"))).toBe("MODIFIED");
    expect(domain.objectMeta.deletionTimestamp).toBe("2026-05-01T10:00:00Z");
  });

  it("does not treat a migration's stop as final", () => {
    expect(
      isFinalEvent({
        event: libvirt.VIR_DOMAIN_EVENT_STOPPED,
        detail: libvirt.VIR_DOMAIN_EVENT_STOPPED_MIGRATED,
      }),
    ).toBe(false);
    expect(
      isFinalEvent({
        event: libvirt.VIR_DOMAIN_EVENT_STOPPED,
        detail: libvirt.VIR_DOMAIN_EVENT_STOPPED_DESTROYED,
      }),
    ).toBe(true);
  });
});

describe("isMigratedInEvent", () => {
  it.each([
    [libvirt.VIR_DOMAIN_EVENT_RESUMED, libvirt.VIR_DOMAIN_EVENT_RESUMED_MIGRATED, true],
    [libvirt.VIR_DOMAIN_EVENT_SUSPENDED, libvirt.VIR_DOMAIN_EVENT_SUSPENDED_PAUSED, true],
    [libvirt.VIR_DOMAIN_EVENT_RESUMED, libvirt.VIR_DOMAIN_EVENT_RESUMED_UNPAUSED, false],
    [libvirt.VIR_DOMAIN_EVENT_STARTED, libvirt.VIR_DOMAIN_EVENT_STARTED_MIGRATED, false],
    [libvirt.VIR_DOMAIN_EVENT_DEFINED, libvirt.VIR_DOMAIN_EVENT_DEFINED_UPDATED, false],
  ])("event %d detail %d: %s", (event, detail, expected) => {
    expect(isMigratedInEvent({ event, detail })).toBe(expected);
  });
});

let server: RecordingNotifyServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("DomainNotifier", () => {
  it("tells virt-handler about the domain's life, ending with its deletion", async () => {
    server = await startRecordingNotifyServer();
    const { fake, metadata, manager } = testManager();
    const notifier = new Notifier(server.socketPath, silentLogger);
    const domainNotifier = new DomainNotifier({
      events: fake,
      connection: fake,
      metadata,
      notifier,
      domainName: "default_testvmi",
      log: silentLogger,
    });
    await domainNotifier.start();
    // Each event carries the domain as it is when the event is handled; letting the queue drain
    // between steps makes the sequence deterministic.
    await manager.syncVMI(vmi, true, null);
    await domainNotifier.drained();
    fake.powerOff("default_testvmi");
    await domainNotifier.drained();
    await manager.deleteVMI(vmi);
    await domainNotifier.deleteNotificationSent;
    await domainNotifier.stop();
    notifier.close();

    const seen = server.domainEvents.map((event) => [
      event.type,
      event.domain.status.status,
      event.domain.status.reason,
    ]);
    expect(seen[0]?.[0]).toBe("ADDED");
    expect(seen.at(-2)).toEqual(["MODIFIED", "Shutoff", "Shutdown"]);
    expect(seen.at(-1)).toEqual(["MODIFIED", "NoState", "NonExistent"]);
    const last = server.domainEvents.at(-1);
    expect(last?.domain.objectMeta.deletionTimestamp).toBeDefined();
    expect(last?.domain.objectMeta.uid).toBe(vmi.metadata?.uid);
    expect(
      server.domainEvents
        .slice(0, -1)
        .every((event) => event.domain.objectMeta.deletionTimestamp === undefined),
    ).toBe(true);
  });

  it("ignores other domains' events", async () => {
    server = await startRecordingNotifyServer();
    const { fake, metadata } = testManager();
    const notifier = new Notifier(server.socketPath, silentLogger);
    const domainNotifier = new DomainNotifier({
      events: fake,
      connection: fake,
      metadata,
      notifier,
      domainName: "ns_other",
      log: silentLogger,
    });
    await domainNotifier.start();
    fake.emit(
      { name: "default_testvmi", uuid: new Uint8Array(16), id: 1 },
      libvirt.VIR_DOMAIN_EVENT_STARTED,
      0,
    );
    await domainNotifier.drained();
    await domainNotifier.stop();
    notifier.close();
    expect(server.domainEvents).toEqual([]);
  });
});

describe("DomainNotifier and hotplugged devices", () => {
  it("sends the domain again when libvirt reports a device added or removed", async () => {
    server = await startRecordingNotifyServer();
    const { fake, metadata, manager } = testManager();
    const notifier = new Notifier(server.socketPath, silentLogger);
    const domainNotifier = new DomainNotifier({
      events: fake,
      connection: fake,
      metadata,
      notifier,
      domainName: "default_testvmi",
      log: silentLogger,
    });
    await domainNotifier.start();
    await manager.syncVMI(vmi, true, null);
    await domainNotifier.drained();
    const dom = await fake.domainLookupByName("default_testvmi");
    const disk =
      '<disk device="disk" type="file"><source file="/var/run/kubevirt/hotplug-disks/hp.img"/>' +
      '<target bus="scsi" dev="sda"/><alias name="ua-hp"/></disk>';
    const flags = libvirt.VIR_DOMAIN_AFFECT_LIVE | libvirt.VIR_DOMAIN_AFFECT_CONFIG;
    const aliases = (event: RecordingNotifyServer["domainEvents"][number]) =>
      (event.domain.spec.devices.disks ?? []).map((d) => d.alias?.name);
    const seenBefore = server.domainEvents.length;

    await fake.domainAttachDeviceFlags(dom, disk, flags);
    const added = await server.waitForDomainEvent((event) => aliases(event).includes("hp"));
    expect(added.type).toBe("MODIFIED");
    await domainNotifier.drained();
    await fake.domainDetachDeviceFlags(dom, disk, flags);
    await domainNotifier.drained();
    expect(server.domainEvents.map(aliases).slice(seenBefore)).toEqual([["hp"], []]);
    await domainNotifier.stop();
    notifier.close();
  });
});

describe("DomainNotifier and the guest agent", () => {
  it("reports the agent channel's connection, polls the agent while connected and sends what it read", async () => {
    server = await startRecordingNotifyServer();
    const { fake, metadata, manager, agentStore } = testManager();
    const notifier = new Notifier(server.socketPath, silentLogger);
    // Rounds after the first wait for a clock that never moves: one round per start.
    const poller = new AgentPoller({
      connection: fake,
      domainName: "default_testvmi",
      store: agentStore,
      log: silentLogger,
      sleep: (_ms, signal) => new Promise((_resolve, reject) => signal.addEventListener("abort", reject)),
    });
    const domainNotifier = new DomainNotifier({
      events: fake,
      connection: fake,
      metadata,
      notifier,
      domainName: "default_testvmi",
      log: silentLogger,
      agent: { store: agentStore, poller },
    });
    await domainNotifier.start();
    await manager.syncVMI(vmi, true, null);
    await domainNotifier.drained();
    expect(poller.isRunning).toBe(false);

    fake.setAgentConnected("default_testvmi", true);
    const connected = await server.waitForDomainEvent(
      (event) => event.domain.spec.devices.channels?.[0]?.target?.state === "connected",
    );
    expect(connected.type).toBe("MODIFIED");
    await domainNotifier.drained();
    expect(poller.isRunning).toBe(true);
    const reported = await server.waitForDomainEvent((event) => event.domain.status.osInfo !== undefined);
    expect(reported.domain.status).toMatchObject({
      status: "Running",
      osInfo: { name: "Debian GNU/Linux", id: "debian" },
      interfaces: [{ mac: "02:00:00:aa:bb:cc", ip: "10.0.2.2", interfaceName: "eth0" }],
      fsFreezeStatus: "thawed",
    });

    await manager.pauseVMI(vmi);
    await domainNotifier.drained();
    expect(poller.isRunning).toBe(false);
    await manager.unpauseVMI(vmi);
    await domainNotifier.drained();
    expect(poller.isRunning).toBe(true);

    fake.setAgentConnected("default_testvmi", false);
    await server.waitForDomainEvent(
      (event) => event.domain.spec.devices.channels?.[0]?.target?.state === "disconnected",
    );
    await domainNotifier.drained();
    expect(poller.isRunning).toBe(false);
    await domainNotifier.stop();
    notifier.close();
  });
});
