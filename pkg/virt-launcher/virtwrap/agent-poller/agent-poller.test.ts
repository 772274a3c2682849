// The poller end to end through the real libvirt client: a scripted libvirtd answers the RPC calls from a
// fake guest agent speaking QGA JSON (raw agent commands pass through, guest info is flattened into typed
// parameters as libvirt does), so what is tested is the wire as well as the logic.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../controller/log.js";
import { LibvirtClient } from "../../../libvirt/client.js";
import type { DomainEvent } from "../../../libvirt/domain-events.js";
import * as libvirt from "../../../libvirt/generated/libvirt-api.js";
import { FakeDaemon } from "../../../libvirt/testdata/fake-daemon.js";
import { FakeGuestAgent, serveAgentCalls } from "../../../libvirt/testdata/fake-guest-agent.js";
import { AgentPoller, pollIntervals, readFSFreezeStatus } from "./agent-poller.js";
import { AsyncAgentStore } from "./agent-store.js";

const DOMAIN = "default_testvmi";
const dom = { name: DOMAIN, uuid: new Uint8Array(16), id: 1 };

const agentEvent = (state: number): DomainEvent => ({
  kind: "agent-lifecycle",
  callbackID: 1,
  domain: dom,
  state,
  reason: libvirt.VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_REASON_CHANNEL,
});
const connected = agentEvent(libvirt.VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_STATE_CONNECTED);
const disconnected = agentEvent(libvirt.VIR_CONNECT_DOMAIN_EVENT_AGENT_LIFECYCLE_STATE_DISCONNECTED);
const lifecycle = (event: number): DomainEvent => ({
  kind: "lifecycle",
  callbackID: 2,
  domain: dom,
  event,
  detail: 0,
  eventName: "",
  detailName: "",
});

/** A clock the test moves: every worker's wait is recorded and ends when the test says so. */
class ManualClock {
  readonly waits: { ms: number; done: () => void }[] = [];
  readonly sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const wait = {
        ms,
        done: () => {
          signal.removeEventListener("abort", abort);
          resolve();
        },
      };
      const abort = () => {
        this.waits.splice(this.waits.indexOf(wait), 1);
        reject(signal.reason);
      };
      this.waits.push(wait);
      signal.addEventListener("abort", abort, { once: true });
    });
  /** Ends every pending wait: each worker runs one more round. */
  tick(): void {
    for (const wait of this.waits.splice(0)) wait.done();
  }
}

let daemon: FakeDaemon;
let client: LibvirtClient;
let agent: FakeGuestAgent;
let store: AsyncAgentStore;
let clock: ManualClock;
let poller: AgentPoller;

beforeEach(async () => {
  daemon = new FakeDaemon();
  await daemon.start();
  client = await LibvirtClient.connect(daemon.socketPath);
  agent = new FakeGuestAgent();
  serveAgentCalls(daemon, agent, [dom]);
  store = new AsyncAgentStore();
  clock = new ManualClock();
  poller = new AgentPoller({
    connection: client,
    domainName: DOMAIN,
    store,
    log: silentLogger,
    sleep: clock.sleep,
  });
});

afterEach(async () => {
  poller.stop();
  await client.rpc.connection.close();
  await daemon.stop();
});

/** Waits until every worker has finished its round and waits for the clock. */
const settled = (workers = 5) => expect.poll(() => clock.waits.length, { timeout: 5_000 }).toBe(workers);

describe("AgentPoller", () => {
  it("on the agent's connection fills the store from libvirt: sysinfo, users, filesystems, agent, freeze status", async () => {
    poller.updateFromEvent(connected);
    await settled();
    expect(store.getGuestOSInfo()).toEqual({
      name: "Debian GNU/Linux",
      kernelRelease: "6.1.0-18-amd64",
      version: "12 (bookworm)",
      prettyName: "Debian GNU/Linux 12 (bookworm)",
      versionId: "12",
      kernelVersion: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
      machine: "x86_64",
      id: "debian",
    });
    expect(store.getSysInfo()).toMatchObject({ hostname: "testvmi", timezone: { zone: "UTC", offset: 0 } });
    expect(store.getInterfaceStatus()).toEqual([
      {
        mac: "02:00:00:aa:bb:cc",
        ip: "10.0.2.2",
        ips: ["fe80::ff:feaa:bbcc", "10.0.2.2"],
        interfaceName: "eth0",
      },
    ]);
    expect(store.getUsers(-1)).toEqual([{ name: "root", domain: "", loginTime: 1_700_000_000.123 }]);
    expect(store.getFS(-1)).toEqual([
      {
        name: "vda1",
        mountpoint: "/",
        type: "ext4",
        usedBytes: 5_368_709_120,
        totalBytes: 10_737_418_240,
        disk: [{ serial: "containerdisk", busType: "virtio" }],
      },
    ]);
    expect(store.getGA().version).toBe("7.2.0");
    expect(store.getGA().supportedCommands).toContainEqual({ name: "guest-get-osinfo", enabled: true });
    expect(store.getFSFreezeStatus()).toBe("thawed");
    // what libvirt asked the agent for virDomainGetGuestInfo, besides the poller's own commands
    expect(new Set(agent.received)).toEqual(
      new Set([
        "guest-info",
        "guest-get-fsinfo",
        "guest-fsfreeze-status",
        "guest-network-get-interfaces",
        "guest-get-osinfo",
        "guest-get-host-name",
        "guest-get-timezone",
        "guest-get-users",
      ]),
    );
  });

  it("announces changes only, each round after the first at the next tick", async () => {
    const updates: (string | undefined)[] = [];
    store.onUpdate((info) => updates.push(info.fsFreezeStatus));
    poller.start();
    await settled();
    const first = updates.length;
    expect(first).toBe(3); // interfaces, os and freeze status were read for the first time
    clock.tick();
    await settled();
    expect(updates).toHaveLength(first);
    agent.state.fsFreezeStatus = "frozen";
    clock.tick();
    await settled();
    expect(updates.slice(first)).toEqual(["frozen"]);
  });

  it("stops when the agent disconnects or the domain is paused; a resume restarts it only while connected", async () => {
    poller.updateFromEvent(connected);
    await settled();
    poller.updateFromEvent(lifecycle(libvirt.VIR_DOMAIN_EVENT_SUSPENDED));
    expect(poller.isRunning).toBe(false);
    expect(clock.waits).toHaveLength(0); // every wait was aborted
    poller.updateFromEvent(lifecycle(libvirt.VIR_DOMAIN_EVENT_RESUMED));
    expect(poller.isRunning).toBe(true);
    await settled();
    poller.updateFromEvent(disconnected);
    expect(poller.isRunning).toBe(false);
    poller.updateFromEvent(lifecycle(libvirt.VIR_DOMAIN_EVENT_RESUMED));
    expect(poller.isRunning).toBe(false);
  });

  it("keeps what it had when libvirt says the agent is not connected, and goes on polling", async () => {
    agent.connected = false;
    poller.start();
    await settled();
    expect(store.domainGuestInfo()).toEqual({
      interfaces: undefined,
      osInfo: undefined,
      fsFreezeStatus: undefined,
    });
    agent.connected = true;
    clock.tick();
    await settled();
    expect(store.getGuestOSInfo()?.id).toBe("debian");
  });

  it("waits 10 s after a round, doubling up to each worker's own period", async () => {
    expect([...take(pollIntervals(10_000, 120_000), 6)]).toEqual([
      10_000, 20_000, 40_000, 80_000, 120_000, 120_000,
    ]);
    expect([...take(pollIntervals(10_000, 5_000), 2)]).toEqual([5_000, 5_000]);
    poller.start();
    await settled();
    // fsfreeze-status (5 s) starts at its period, the others at 10 s
    expect(clock.waits.map((wait) => wait.ms).sort((a, b) => a - b)).toEqual([
      5_000, 10_000, 10_000, 10_000, 10_000,
    ]);
  });

  it("reads the freeze status on its own, for freeze and unfreeze to report at once", async () => {
    agent.state.fsFreezeStatus = "frozen";
    expect(await readFSFreezeStatus(client, DOMAIN)).toBe("frozen");
    agent.connected = false;
    await expect(readFSFreezeStatus(client, DOMAIN)).rejects.toMatchObject({
      code: libvirt.VIR_ERR_AGENT_UNRESPONSIVE,
    });
  });
});

function* take<T>(items: Iterator<T>, count: number): Generator<T> {
  for (let i = 0; i < count; i++) yield items.next().value as T;
}
