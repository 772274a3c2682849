// The client against a real libvirtd (Debian's packages, installed if missing): a private
// session-mode daemon as an unprivileged uid, like virt-launcher runs it, and a small TCG domain
// with no disk and no network device.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LibvirtClient } from "./client.js";
import type { Domain, DomainEvent } from "./client.js";
import { LibvirtError } from "./errors.js";
import {
  VIR_DOMAIN_EVENT_DEFINED,
  VIR_DOMAIN_EVENT_DEFINED_ADDED,
  VIR_DOMAIN_EVENT_ID_LIFECYCLE,
  VIR_DOMAIN_EVENT_RESUMED,
  VIR_DOMAIN_EVENT_RESUMED_UNPAUSED,
  VIR_DOMAIN_EVENT_STARTED,
  VIR_DOMAIN_EVENT_STARTED_BOOTED,
  VIR_DOMAIN_EVENT_STOPPED,
  VIR_DOMAIN_EVENT_STOPPED_DESTROYED,
  VIR_DOMAIN_EVENT_SUSPENDED,
  VIR_DOMAIN_EVENT_SUSPENDED_PAUSED,
  VIR_DOMAIN_EVENT_UNDEFINED,
  VIR_DOMAIN_EVENT_UNDEFINED_REMOVED,
  VIR_DOMAIN_GUEST_INFO_OS,
  VIR_DOMAIN_JOB_NONE,
  VIR_DOMAIN_PAUSED,
  VIR_DOMAIN_PAUSED_USER,
  VIR_DOMAIN_RUNNING,
  VIR_DOMAIN_RUNNING_BOOTED,
  VIR_DOMAIN_SHUTOFF,
  VIR_DOMAIN_SHUTOFF_DESTROYED,
  VIR_ERR_AGENT_UNRESPONSIVE,
  VIR_ERR_NO_DOMAIN,
  VIR_ERR_XML_DETAIL,
} from "./generated/libvirt-api.js";
import { startSessionDaemon } from "./testdata/session-daemon.js";
import type { SessionDaemon } from "./testdata/session-daemon.js";
import { uuidToString } from "./uuid.js";
import { runnable, unlessRoot } from "../testutils/requirement.js";

const here = dirname(fileURLToPath(import.meta.url));
// starting a private libvirtd as another uid needs root
const isRoot = runnable("the real-libvirt tests", unlessRoot());
const DAEMON_UID = 61801;
const NAME = "kvts-libvirt-client-test";
const domainXML = (name: string, devices = "") => `<domain type='qemu'>
  <name>${name}</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <video><model type='none'/></video>
    <memballoon model='none'/>${devices}
  </devices>
</domain>`;
const DOMAIN_XML = domainXML(NAME);
// The guest agent channel as virt-launcher defines it, QEMU serving the socket; the path is given since the
// one libvirt would pick under this test's temporary HOME is longer than a socket path may be.
const agentChannel = (socketPath: string) => `
    <channel type='unix'>
      <source mode='bind' path='${socketPath}'/>
      <target type='virtio' name='org.qemu.guest_agent.0'/>
    </channel>`;

/** "QEMU emulator version 7.2.22 (...)" -> 7002022, libvirt's encoding of versions. */
function versionNumberOf(text: string): number {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (!match) throw new Error(`no version in ${JSON.stringify(text)}`);
  return Number(match[1]) * 1_000_000 + Number(match[2]) * 1_000 + Number(match[3]);
}

describe.runIf(isRoot)("LibvirtClient against a real session libvirtd", () => {
  let daemon: SessionDaemon;
  let client: LibvirtClient;
  const events: DomainEvent[] = [];

  beforeAll(async () => {
    execFileSync(join(here, "testdata", "install-libvirt.sh"), { stdio: "pipe" });
    // keepalive every second so the test sees the daemon's PINGs answered.
    daemon = await startSessionDaemon({
      uid: DAEMON_UID,
      libvirtdConf: ["keepalive_interval = 1", "keepalive_count = 3"],
    });
    client = await LibvirtClient.connect(daemon.socketPath);
    await client.connectOpen("qemu:///session");
    await client.subscribeDomainEvents(VIR_DOMAIN_EVENT_ID_LIFECYCLE, null, (event) => events.push(event));
  }, 300_000);

  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
  }, 60_000);

  /** Waits for the lifecycle event `event`/`detail` of our domain. */
  async function lifecycleEvent(event: number, detail: number): Promise<void> {
    await expect
      .poll(
        () =>
          events.some(
            (e) =>
              e.kind === "lifecycle" && e.domain.name === NAME && e.event === event && e.detail === detail,
          ),
        { timeout: 30_000, interval: 50 },
      )
      .toBe(true);
  }

  it("reports the versions of QEMU and libvirt that are installed", async () => {
    expect(await client.getVersion()).toBe(
      versionNumberOf(execFileSync("qemu-system-x86_64", ["--version"]).toString()),
    );
    expect(await client.getLibVersion()).toBe(
      versionNumberOf(execFileSync("libvirtd", ["--version"]).toString()),
    );
  }, 60_000); // the daemon probes QEMU's capabilities on the first call

  it("drives a domain through its lifecycle and receives each event", async () => {
    const defined = await client.domainDefineXML(DOMAIN_XML);
    expect(defined).toMatchObject({ name: NAME, id: -1 });
    await lifecycleEvent(VIR_DOMAIN_EVENT_DEFINED, VIR_DOMAIN_EVENT_DEFINED_ADDED);
    expect((await client.domainLookupByUUID(uuidToString(defined.uuid))).name).toBe(NAME);
    expect((await client.connectListAllDomains()).map((d) => d.name)).toContain(NAME);

    const running: Domain = await client.domainCreateWithFlags(defined);
    expect(running.id).toBeGreaterThan(0);
    await lifecycleEvent(VIR_DOMAIN_EVENT_STARTED, VIR_DOMAIN_EVENT_STARTED_BOOTED);
    expect(await client.domainGetState(running)).toEqual({
      state: VIR_DOMAIN_RUNNING,
      reason: VIR_DOMAIN_RUNNING_BOOTED,
    });
    expect(await client.domainGetInfo(running)).toMatchObject({
      state: VIR_DOMAIN_RUNNING,
      maxMem: 65536n,
      nrVirtCpu: 1,
    });
    expect(await client.domainGetXMLDesc(running)).toContain(`<name>${NAME}</name>`);
    expect((await client.domainGetJobInfo(running)).type).toBe(VIR_DOMAIN_JOB_NONE);

    const status = async () =>
      JSON.parse(await client.qemuDomainMonitorCommand(running, '{"execute":"query-status"}'));
    expect((await status()).return).toMatchObject({ status: "running", running: true });

    await client.domainSuspend(running);
    await lifecycleEvent(VIR_DOMAIN_EVENT_SUSPENDED, VIR_DOMAIN_EVENT_SUSPENDED_PAUSED);
    expect(await client.domainGetState(running)).toEqual({
      state: VIR_DOMAIN_PAUSED,
      reason: VIR_DOMAIN_PAUSED_USER,
    });
    expect((await status()).return).toMatchObject({ status: "paused", running: false });

    events.length = 0; // starting also emits RESUMED: only a fresh one proves resume worked
    await client.domainResume(running);
    await lifecycleEvent(VIR_DOMAIN_EVENT_RESUMED, VIR_DOMAIN_EVENT_RESUMED_UNPAUSED);
    await client.domainReset(running);
    expect((await client.domainGetState(running)).state).toBe(VIR_DOMAIN_RUNNING);

    await client.domainDestroyFlags(running);
    await lifecycleEvent(VIR_DOMAIN_EVENT_STOPPED, VIR_DOMAIN_EVENT_STOPPED_DESTROYED);
    expect(await client.domainGetState(defined)).toEqual({
      state: VIR_DOMAIN_SHUTOFF,
      reason: VIR_DOMAIN_SHUTOFF_DESTROYED,
    });

    await client.domainUndefineFlags(defined);
    await lifecycleEvent(VIR_DOMAIN_EVENT_UNDEFINED, VIR_DOMAIN_EVENT_UNDEFINED_REMOVED);
    const gone = await client.domainLookupByName(NAME).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(LibvirtError);
    expect(gone).toMatchObject({ code: VIR_ERR_NO_DOMAIN, codeName: "VIR_ERR_NO_DOMAIN" });
    expect(String((gone as LibvirtError).message)).toContain(NAME);
  }, 180_000);

  it("reports invalid domain XML as a LibvirtError carrying libvirt's message", async () => {
    const failure = await client.domainDefineXML("<domain><bad").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LibvirtError);
    expect(failure).toMatchObject({
      code: VIR_ERR_XML_DETAIL,
      codeName: "VIR_ERR_XML_DETAIL",
      domainName: "VIR_FROM_DOMAIN",
    });
    expect((failure as LibvirtError).message).toMatch(
      /^\(domain_definition\):1: Couldn't find end of Start Tag bad/,
    );
  }, 30_000);

  it("takes a screenshot of a running domain's display through a stream", async () => {
    const name = `${NAME}-display`;
    const xml = domainXML(name).replace(
      "<video><model type='none'/></video>",
      "<video><model type='vga'/></video><graphics type='vnc'><listen type='none'/></graphics>",
    );
    const dom = await client.domainCreateWithFlags(await client.domainDefineXML(xml));
    try {
      const { mime, data } = await client.domainScreenshot(dom);
      // libvirt 9 has QEMU write PNG when QEMU can (7.1 and later).
      expect(mime).toBe("image/png");
      expect(data.subarray(0, 8).equals(Buffer.from("89504e470d0a1a0a", "hex"))).toBe(true);
      // The stream was finished cleanly: the connection carries on, and a second one works too.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(client.rpc.connection.isOpen).toBe(true);
      expect(await client.getLibVersion()).toBeGreaterThan(0);
      const again = await client.domainScreenshot(dom);
      expect(again.mime).toBe(mime);
    } finally {
      await client.domainDestroyFlags(dom);
      await client.domainUndefineFlags(dom);
    }
  }, 120_000);

  it("maps a guest agent nobody answers to libvirt's agent error, channel disconnected", async () => {
    // QEMU's side of the virtio-serial channel is only answered by an agent inside a guest, and this
    // domain boots nothing: libvirt reports the channel disconnected and refuses agent calls.
    const name = `${NAME}-agent`;
    const dom = await client.domainCreateWithFlags(
      await client.domainDefineXML(domainXML(name, agentChannel(join(daemon.root, "run", "agent.sock")))),
    );
    try {
      expect(await client.domainGetXMLDesc(dom)).toMatch(
        /<target type='virtio' name='org\.qemu\.guest_agent\.0' state='disconnected'\/>/,
      );
      const command = await client.qemuAgentCommand(dom, '{"execute":"guest-info"}').catch((e: unknown) => e);
      const guestInfo = await client
        .domainGetGuestInfo(dom, VIR_DOMAIN_GUEST_INFO_OS)
        .catch((e: unknown) => e);
      for (const failure of [command, guestInfo]) {
        expect(failure).toBeInstanceOf(LibvirtError);
        expect(failure).toMatchObject({
          code: VIR_ERR_AGENT_UNRESPONSIVE,
          codeName: "VIR_ERR_AGENT_UNRESPONSIVE",
        });
        expect((failure as LibvirtError).message).toBe(
          "Guest agent is not responding: QEMU guest agent is not connected",
        );
      }
    } finally {
      await client.domainDestroyFlags(dom).catch(() => undefined);
      await client.domainUndefineFlags(dom).catch(() => undefined);
    }
  }, 120_000);

  it("reads a running domain's bulk statistics and memory figures, by the names the launcher reads", async () => {
    const name = `${NAME}-stats`;
    const dom = await client.domainCreateWithFlags(await client.domainDefineXML(domainXML(name)));
    try {
      // cpu total | vcpu | interface | block, of running or paused domains (libvirt-domain.h's values).
      const records = await client.connectGetAllDomainStats(2 | 8 | 16 | 32, 16 | 32);
      const record = records.find((r) => r.dom.name === name);
      expect(record?.params).toMatchObject({
        "cpu.time": expect.any(BigInt),
        "vcpu.current": 1,
        "vcpu.maximum": 1,
        "vcpu.0.state": 1,
        "vcpu.0.time": expect.any(BigInt),
        "net.count": 0,
        "block.count": 0,
      });
      const memory = await client.domainMemoryStats(dom, 13);
      // RSS (tag 7) is there even without a balloon device.
      expect(memory.find((stat) => stat.tag === 7)?.val).toBeGreaterThan(0n);
    } finally {
      await client.domainDestroyFlags(dom).catch(() => undefined);
      await client.domainUndefineFlags(dom).catch(() => undefined);
    }
  }, 120_000);

  it("answers the daemon's keepalive pings and stays connected", async () => {
    expect(await client.enableDaemonKeepAlive()).toBe(true);
    await expect
      .poll(() => client.rpc.connection.pingsAnswered, { timeout: 15_000, interval: 100 })
      .toBeGreaterThanOrEqual(2);
    expect(client.rpc.connection.isOpen).toBe(true);
    expect(await client.getLibVersion()).toBeGreaterThan(0);
  }, 30_000);
});
