import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LibvirtClient } from "./client.js";
import type { DomainEvent } from "./client.js";
import { LibvirtNotSupportedError, LibvirtProtocolError } from "./errors.js";
import type { Packet } from "./framing.js";
import {
  VIR_DOMAIN_AFFECT_CONFIG,
  VIR_DOMAIN_AFFECT_LIVE,
  VIR_DOMAIN_EVENT_ID_DEVICE_ADDED,
  VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED,
  VIR_DOMAIN_EVENT_ID_LIFECYCLE,
  VIR_DOMAIN_EVENT_STARTED,
  VIR_DOMAIN_EVENT_STARTED_BOOTED,
  VIR_DOMAIN_GUEST_INFO_HOSTNAME,
  VIR_DOMAIN_GUEST_INFO_USERS,
  VIR_DOMAIN_JOB_UNBOUNDED,
  VIR_DOMAIN_QEMU_AGENT_COMMAND_DEFAULT,
  VIR_DOMAIN_RUNNING,
  VIR_DOMAIN_RUNNING_BOOTED,
  VIR_TYPED_PARAM_BOOLEAN,
  VIR_TYPED_PARAM_STRING,
  VIR_TYPED_PARAM_UINT,
  VIR_TYPED_PARAM_ULLONG,
} from "./generated/libvirt-api.js";
import {
  QEMU_PROC_DOMAIN_AGENT_COMMAND,
  QEMU_PROC_DOMAIN_MONITOR_COMMAND,
  QEMU_PROGRAM,
  QemuDomainAgentCommandArgsCodec,
  QemuDomainAgentCommandRetCodec,
  QemuDomainMonitorCommandArgsCodec,
} from "./generated/qemu-protocol.js";
import * as remote from "./generated/remote-protocol.js";
import { VIR_MIGRATE_LIVE, VIR_MIGRATE_PEER2PEER, VIR_MIGRATE_PERSIST_DEST } from "./migrate.js";
import { VIR_NET_MESSAGE, VIR_NET_OK } from "./generated/virnet-protocol.js";
import type { DecodedMessage } from "./rpc-client.js";
import { FakeDaemon } from "./testdata/fake-daemon.js";
import { decodeXdr, encodeXdr } from "./xdr.js";
import type { XdrCodec } from "./xdr.js";

const dom = { name: "vm1", uuid: Buffer.alloc(16, 1), id: 1 };

let daemon: FakeDaemon;
let client: LibvirtClient;

/** Waits for the client's next call and answers it with `ret` encoded by `codec`. */
async function answerNext<T>(codec?: XdrCodec<T>, ret?: T): Promise<Packet> {
  const packets = await daemon.waitForPackets(daemon.received.length + 1);
  const call = packets[packets.length - 1] as Packet;
  daemon.reply(call, codec ? encodeXdr(codec, ret as T) : new Uint8Array());
  return call;
}

function sendEvent<T>(procedure: number, codec: XdrCodec<T>, message: T): void {
  const header = {
    prog: remote.REMOTE_PROGRAM,
    vers: 1,
    proc: procedure,
    type: VIR_NET_MESSAGE,
    serial: 0,
    status: VIR_NET_OK,
  } as const;
  daemon.send(header, encodeXdr(codec, message));
}

beforeEach(async () => {
  daemon = new FakeDaemon();
  await daemon.start();
  client = await LibvirtClient.connect(daemon.socketPath);
});

afterEach(async () => {
  await client.rpc.connection.close();
  await daemon.stop();
});

describe("LibvirtClient calls", () => {
  it("connectOpen sends the URI with the remote program's CONNECT_OPEN", async () => {
    const opened = client.connectOpen("qemu:///session");
    const call = await answerNext();
    await opened;
    expect(call.header).toMatchObject({
      prog: remote.REMOTE_PROGRAM,
      vers: 1,
      proc: remote.REMOTE_PROC_CONNECT_OPEN,
    });
    expect(decodeXdr(remote.RemoteConnectOpenArgsCodec, call.payload)).toEqual({
      name: "qemu:///session",
      flags: 0,
    });
  });

  it("domainGetState decodes the state and reason", async () => {
    const state = client.domainGetState(dom);
    const call = await answerNext(remote.RemoteDomainGetStateRetCodec, {
      state: VIR_DOMAIN_RUNNING,
      reason: VIR_DOMAIN_RUNNING_BOOTED,
    });
    expect(await state).toEqual({ state: VIR_DOMAIN_RUNNING, reason: VIR_DOMAIN_RUNNING_BOOTED });
    expect(decodeXdr(remote.RemoteDomainGetStateArgsCodec, call.payload)).toEqual({ dom, flags: 0 });
  });

  it("domainLookupByUUID accepts the printed form of a UUID", async () => {
    const found = client.domainLookupByUUID("01010101-0101-0101-0101-010101010101");
    const call = await answerNext(remote.RemoteDomainLookupByUuidRetCodec, { dom });
    expect(await found).toEqual(dom);
    expect(decodeXdr(remote.RemoteDomainLookupByUuidArgsCodec, call.payload).uuid).toEqual(dom.uuid);
  });

  it("qemuDomainMonitorCommand goes to the QEMU program", async () => {
    const answer = client.qemuDomainMonitorCommand(dom, '{"execute":"query-status"}');
    const call = await answerNext(remote.RemoteNonnullStringCodec, '{"return":{}}');
    expect(await answer).toBe('{"return":{}}');
    expect(call.header).toMatchObject({ prog: QEMU_PROGRAM, proc: QEMU_PROC_DOMAIN_MONITOR_COMMAND });
    expect(decodeXdr(QemuDomainMonitorCommandArgsCodec, call.payload).cmd).toBe('{"execute":"query-status"}');
  });

  it("domainFSFreeze and domainFSThaw freeze all filesystems and answer the count", async () => {
    const frozen = client.domainFSFreeze(dom);
    const freeze = await answerNext(remote.RemoteDomainFsfreezeRetCodec, { filesystems: 2 });
    expect(await frozen).toBe(2);
    expect(freeze.header.proc).toBe(remote.REMOTE_PROC_DOMAIN_FSFREEZE);
    expect(decodeXdr(remote.RemoteDomainFsfreezeArgsCodec, freeze.payload)).toEqual({
      dom,
      mountpoints: [],
      flags: 0,
    });
    const thawed = client.domainFSThaw(dom);
    const thaw = await answerNext(remote.RemoteDomainFsthawRetCodec, { filesystems: 2 });
    expect(await thawed).toBe(2);
    expect(thaw.header.proc).toBe(remote.REMOTE_PROC_DOMAIN_FSTHAW);
  });

  it("domainAttachDeviceFlags and domainDetachDeviceFlags send the device XML with the flags", async () => {
    const xml = '<disk type="file" device="disk"><target dev="sda" bus="scsi"/></disk>';
    const flags = VIR_DOMAIN_AFFECT_LIVE | VIR_DOMAIN_AFFECT_CONFIG;
    const attached = client.domainAttachDeviceFlags(dom, xml, flags);
    const attach = await answerNext();
    await attached;
    expect(attach.header.proc).toBe(remote.REMOTE_PROC_DOMAIN_ATTACH_DEVICE_FLAGS);
    expect(attach.header.proc).toBe(160);
    expect(decodeXdr(remote.RemoteDomainAttachDeviceFlagsArgsCodec, attach.payload)).toEqual({
      dom,
      xml,
      flags,
    });
    const detached = client.domainDetachDeviceFlags(dom, xml, flags);
    const detach = await answerNext();
    await detached;
    expect(detach.header.proc).toBe(remote.REMOTE_PROC_DOMAIN_DETACH_DEVICE_FLAGS);
    expect(detach.header.proc).toBe(161);
    expect(decodeXdr(remote.RemoteDomainDetachDeviceFlagsArgsCodec, detach.payload)).toEqual({
      dom,
      xml,
      flags,
    });
  });

  it("qemuAgentCommand goes to the QEMU program with libvirt's default timeout", async () => {
    const answer = client.qemuAgentCommand(dom, '{"execute":"guest-info"}');
    const call = await answerNext(QemuDomainAgentCommandRetCodec, {
      result: '{"return":{"version":"7.2.0"}}',
    });
    expect(await answer).toBe('{"return":{"version":"7.2.0"}}');
    expect(call.header).toMatchObject({ prog: QEMU_PROGRAM, proc: QEMU_PROC_DOMAIN_AGENT_COMMAND });
    expect(decodeXdr(QemuDomainAgentCommandArgsCodec, call.payload)).toEqual({
      dom,
      cmd: '{"execute":"guest-info"}',
      timeout: VIR_DOMAIN_QEMU_AGENT_COMMAND_DEFAULT,
      flags: 0,
    });
  });

  it("qemuAgentCommand answers an empty string when libvirt returns no result", async () => {
    const answer = client.qemuAgentCommand(dom, '{"execute":"guest-sync"}', 5);
    const call = await answerNext(QemuDomainAgentCommandRetCodec, { result: null });
    expect(await answer).toBe("");
    expect(decodeXdr(QemuDomainAgentCommandArgsCodec, call.payload).timeout).toBe(5);
  });

  it("domainGetGuestInfo asks for the types and names the typed parameters", async () => {
    const info = client.domainGetGuestInfo(dom, VIR_DOMAIN_GUEST_INFO_USERS | VIR_DOMAIN_GUEST_INFO_HOSTNAME);
    const call = await answerNext(remote.RemoteDomainGetGuestInfoRetCodec, {
      params: [
        { field: "user.count", value: { type: VIR_TYPED_PARAM_UINT, ui: 1 } },
        { field: "user.0.name", value: { type: VIR_TYPED_PARAM_STRING, s: "root" } },
        { field: "user.0.login-time", value: { type: VIR_TYPED_PARAM_ULLONG, ul: 1_700_000_000_123n } },
        { field: "hostname", value: { type: VIR_TYPED_PARAM_STRING, s: "testvmi" } },
      ],
    });
    expect(await info).toEqual({
      "user.count": 1,
      "user.0.name": "root",
      "user.0.login-time": 1_700_000_000_123n,
      hostname: "testvmi",
    });
    expect(decodeXdr(remote.RemoteDomainGetGuestInfoArgsCodec, call.payload)).toEqual({
      dom,
      types: VIR_DOMAIN_GUEST_INFO_USERS | VIR_DOMAIN_GUEST_INFO_HOSTNAME,
      flags: 0,
    });
  });

  it("domainGetJobStats turns typed parameters into a record", async () => {
    const stats = client.domainGetJobStats(dom);
    await answerNext(remote.RemoteDomainGetJobStatsRetCodec, {
      type: VIR_DOMAIN_JOB_UNBOUNDED,
      params: [
        { field: "memory_total", value: { type: VIR_TYPED_PARAM_ULLONG, ul: 1n << 60n } },
        { field: "auto_converge", value: { type: VIR_TYPED_PARAM_BOOLEAN, b: 1 } },
      ],
    });
    expect(await stats).toEqual({
      type: VIR_DOMAIN_JOB_UNBOUNDED,
      params: { memory_total: 1n << 60n, auto_converge: true },
    });
  });

  it("connectGetAllDomainStats asks for every domain and turns each record's parameters into a record", async () => {
    const stats = client.connectGetAllDomainStats(2 | 8, 16 | 32);
    const call = await answerNext(remote.RemoteConnectGetAllDomainStatsRetCodec, {
      retStats: [
        {
          dom,
          params: [
            { field: "cpu.time", value: { type: VIR_TYPED_PARAM_ULLONG, ul: 1234n } },
            { field: "vcpu.current", value: { type: VIR_TYPED_PARAM_UINT, ui: 1 } },
          ],
        },
      ],
    });
    expect(call.header.proc).toBe(remote.REMOTE_PROC_CONNECT_GET_ALL_DOMAIN_STATS);
    expect(decodeXdr(remote.RemoteConnectGetAllDomainStatsArgsCodec, call.payload)).toEqual({
      doms: [],
      stats: 2 | 8,
      flags: 16 | 32,
    });
    expect(await stats).toEqual([{ dom, params: { "cpu.time": 1234n, "vcpu.current": 1 } }]);
  });

  it("domainMemoryStats answers the tagged figures", async () => {
    const stats = client.domainMemoryStats(dom, 13);
    const call = await answerNext(remote.RemoteDomainMemoryStatsRetCodec, {
      stats: [{ tag: 7, val: 2048n }],
    });
    expect(decodeXdr(remote.RemoteDomainMemoryStatsArgsCodec, call.payload)).toEqual({
      dom,
      maxStats: 13,
      flags: 0,
    });
    expect(await stats).toEqual([{ tag: 7, val: 2048n }]);
  });

  it("domainMigrateToURI3 sends PERFORM3_PARAMS with the parameters typed, lists as repeated names", async () => {
    const flags = VIR_MIGRATE_LIVE | VIR_MIGRATE_PEER2PEER | VIR_MIGRATE_PERSIST_DEST;
    const migrated = client.domainMigrateToURI3(
      dom,
      "qemu+unix:///session?socket=/s/uid-source.sock",
      {
        uri: "unix:///s/uid-49152-source.sock",
        destName: "ns_vm",
        destXML: "<domain/>",
        bandwidth: 64,
        migrateDisks: ["vda", "vdb"],
      },
      flags,
    );
    const call = await answerNext(remote.RemoteDomainMigratePerform3ParamsRetCodec, {
      cookie_out: new Uint8Array(0),
    });
    await migrated;
    expect(call.header.proc).toBe(remote.REMOTE_PROC_DOMAIN_MIGRATE_PERFORM3_PARAMS);
    const args = decodeXdr(remote.RemoteDomainMigratePerform3ParamsArgsCodec, call.payload);
    expect(args).toMatchObject({ dom, dconnuri: "qemu+unix:///session?socket=/s/uid-source.sock", flags });
    expect(args.params).toEqual([
      { field: "migrate_uri", value: { type: VIR_TYPED_PARAM_STRING, s: "unix:///s/uid-49152-source.sock" } },
      { field: "destination_name", value: { type: VIR_TYPED_PARAM_STRING, s: "ns_vm" } },
      { field: "destination_xml", value: { type: VIR_TYPED_PARAM_STRING, s: "<domain/>" } },
      { field: "bandwidth", value: { type: VIR_TYPED_PARAM_ULLONG, ul: 64n } },
      { field: "migrate_disks", value: { type: VIR_TYPED_PARAM_STRING, s: "vda" } },
      { field: "migrate_disks", value: { type: VIR_TYPED_PARAM_STRING, s: "vdb" } },
    ]);
  });

  it("domainAbortJob names the domain", async () => {
    const aborted = client.domainAbortJob(dom);
    const call = await answerNext();
    await aborted;
    expect(call.header.proc).toBe(remote.REMOTE_PROC_DOMAIN_ABORT_JOB);
    expect(decodeXdr(remote.RemoteDomainAbortJobArgsCodec, call.payload)).toEqual({ dom });
  });

  it("rejects a reply that does not decode as the procedure's result", async () => {
    const version = client.getVersion().catch((e: unknown) => e);
    await answerNext(remote.RemoteNonnullStringCodec, "not a hyper");
    expect(await version).toBeInstanceOf(LibvirtProtocolError);
    expect(String(await version)).toMatch(/REMOTE_PROC_CONNECT_GET_VERSION: undecodable reply/);
  });

  it.each([
    [
      "a call that streams data back, made without download()",
      () => client.rpc.remote("REMOTE_PROC_DOMAIN_SCREENSHOT", { dom, screen: 0, flags: 0 }),
      /streams data back: call it with download\(\)/,
    ],
    [
      "a call that streams data to the daemon",
      () =>
        client.rpc.remote("REMOTE_PROC_STORAGE_VOL_UPLOAD", {
          vol: { pool: "p", name: "v", key: "k" },
          offset: 0n,
          length: 0n,
          flags: 0,
        }),
      /streams data to the daemon/,
    ],
    [
      "a call passing file descriptors",
      () => client.rpc.remote("REMOTE_PROC_DOMAIN_CREATE_WITH_FILES", { dom, flags: 0 }),
      /passes file descriptors/,
    ],
    [
      "an event",
      () => client.rpc.remote("REMOTE_PROC_DOMAIN_EVENT_LIFECYCLE", undefined),
      /sent by the daemon/,
    ],
    [
      "a migration that is not peer-to-peer",
      () => client.domainMigrateToURI3(dom, "qemu+unix:///session", {}, VIR_MIGRATE_LIVE),
      /only supported with VIR_MIGRATE_PEER2PEER/,
    ],
  ])("refuses %s without sending anything", async (_name, attempt, message) => {
    const failure = await attempt().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LibvirtNotSupportedError);
    expect(String(failure)).toMatch(message);
    expect(daemon.received).toHaveLength(0);
  });
});

describe("LibvirtClient domain events", () => {
  const lifecycle = (callbackID: number) => ({
    callbackID,
    msg: { dom, event: VIR_DOMAIN_EVENT_STARTED, detail: VIR_DOMAIN_EVENT_STARTED_BOOTED },
  });

  it("types device added and removed events with the device's alias", async () => {
    const events: DomainEvent[] = [];
    for (const [eventID, callbackID] of [
      [VIR_DOMAIN_EVENT_ID_DEVICE_ADDED, 11],
      [VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED, 12],
    ] as const) {
      const subscribing = client.subscribeDomainEvents(eventID, null, (event) => events.push(event));
      await answerNext(remote.RemoteConnectDomainEventCallbackRegisterAnyRetCodec, { callbackID });
      await subscribing;
    }
    sendEvent(
      remote.REMOTE_PROC_DOMAIN_EVENT_CALLBACK_DEVICE_ADDED,
      remote.RemoteDomainEventCallbackDeviceAddedMsgCodec,
      { callbackID: 11, dom, devAlias: "ua-hp" },
    );
    sendEvent(
      remote.REMOTE_PROC_DOMAIN_EVENT_CALLBACK_DEVICE_REMOVED,
      remote.RemoteDomainEventCallbackDeviceRemovedMsgCodec,
      { callbackID: 12, msg: { dom, devAlias: "ua-hp" } },
    );
    await expect.poll(() => events.length).toBe(2);
    expect(events).toEqual([
      { kind: "device-added", callbackID: 11, domain: dom, devAlias: "ua-hp" },
      { kind: "device-removed", callbackID: 12, domain: dom, devAlias: "ua-hp" },
    ]);
  });

  it("delivers a subscription's events typed, and others to onUnroutedMessage", async () => {
    const events: DomainEvent[] = [];
    const unrouted: DecodedMessage[] = [];
    client.onUnroutedMessage((message) => unrouted.push(message));
    const subscribing = client.subscribeDomainEvents(VIR_DOMAIN_EVENT_ID_LIFECYCLE, null, (event) =>
      events.push(event),
    );
    const register = await answerNext(remote.RemoteConnectDomainEventCallbackRegisterAnyRetCodec, {
      callbackID: 7,
    });
    const subscription = await subscribing;
    expect(decodeXdr(remote.RemoteConnectDomainEventCallbackRegisterAnyArgsCodec, register.payload)).toEqual({
      eventID: VIR_DOMAIN_EVENT_ID_LIFECYCLE,
      dom: null,
    });

    sendEvent(
      remote.REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE,
      remote.RemoteDomainEventCallbackLifecycleMsgCodec,
      lifecycle(7),
    );
    sendEvent(
      remote.REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE,
      remote.RemoteDomainEventCallbackLifecycleMsgCodec,
      lifecycle(8),
    );
    sendEvent(
      remote.REMOTE_PROC_DOMAIN_EVENT_CALLBACK_REBOOT,
      remote.RemoteDomainEventCallbackRebootMsgCodec,
      {
        callbackID: 7,
        msg: { dom },
      },
    );
    await expect.poll(() => events.length + unrouted.length).toBe(3);
    expect(events).toEqual([
      {
        kind: "lifecycle",
        callbackID: 7,
        domain: dom,
        event: VIR_DOMAIN_EVENT_STARTED,
        detail: VIR_DOMAIN_EVENT_STARTED_BOOTED,
        eventName: "VIR_DOMAIN_EVENT_STARTED",
        detailName: "VIR_DOMAIN_EVENT_STARTED_BOOTED",
      },
      { kind: "reboot", callbackID: 7, domain: dom },
    ]);
    expect(unrouted).toEqual([
      { program: "remote", procedure: "REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE", message: lifecycle(8) },
    ]);

    const unsubscribing = subscription.unsubscribe();
    const deregister = await answerNext();
    await unsubscribing;
    expect(deregister.header.proc).toBe(remote.REMOTE_PROC_CONNECT_DOMAIN_EVENT_CALLBACK_DEREGISTER_ANY);
    sendEvent(
      remote.REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE,
      remote.RemoteDomainEventCallbackLifecycleMsgCodec,
      lifecycle(7),
    );
    await expect.poll(() => unrouted.length).toBe(2);
    expect(events).toHaveLength(2);
  });

  it("reports a message that does not decode instead of dropping it", async () => {
    const unrouted: DecodedMessage[] = [];
    client.onUnroutedMessage((message) => unrouted.push(message));
    sendEvent(remote.REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE, remote.RemoteNonnullStringCodec, "garbage");
    await expect.poll(() => unrouted.length).toBe(1);
    expect(unrouted[0]).toMatchObject({ procedure: "REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE" });
    expect("error" in unrouted[0]! && unrouted[0].error.name).toBe("XdrDecodeError");
  });
});
