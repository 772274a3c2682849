import { mkdir, mkdtemp, rename, rm, symlink } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { silentLogger } from "../../controller/index.js";
import {
  ConsoleHandler,
  parseConsolePath,
  parseStreamPath,
  PRIVATE_VOLUME_IN_POD_DIR,
  SERIAL_SOCKET_NAME,
  VNC_SOCKET_NAME,
} from "./console.js";

const POD_UID = "0b5a3c1e-1111-2222-3333-444455556666";
const OTHER_POD_UID = "0b5a3c1e-9999-2222-3333-444455556666";
const VMI_UID = "7d0e1f2a-aaaa-bbbb-cccc-ddddeeeeffff";

describe("parseConsolePath", () => {
  it.each([
    [
      "/v1/namespaces/default/virtualmachineinstances/testvmi/console",
      { namespace: "default", name: "testvmi" },
    ],
    ["/v1/namespaces/ns/virtualmachineinstances/a.b-c/console?x=1", { namespace: "ns", name: "a.b-c" }],
    ["/v1/namespaces/n%73/virtualmachineinstances/vm/console", { namespace: "ns", name: "vm" }],
    ["/v1/namespaces/ns/virtualmachineinstances/vm/vnc", undefined],
    ["/v1/namespaces/ns/virtualmachineinstances/vm/console/", undefined],
    ["/v1/namespaces//virtualmachineinstances/vm/console", undefined],
    ["/v1/namespaces/a%2Fb/virtualmachineinstances/vm/console", undefined],
    ["/v1/namespaces/%E0%A4%A/virtualmachineinstances/vm/console", undefined],
    ["/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vm/console", undefined],
  ])("%s", (url, expected) => {
    expect(parseConsolePath(url)).toEqual(expected);
  });

  it("never throws and never yields a name with a slash, on any input", () => {
    const segment = fc.oneof(fc.string(), fc.constantFrom("%", "%2F", "%ZZ", "..", "%00"));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.tuple(segment, segment)), (input) => {
        const url =
          typeof input === "string"
            ? input
            : `/v1/namespaces/${input[0]}/virtualmachineinstances/${input[1]}/console`;
        const parsed = parseConsolePath(url);
        if (parsed) expect(`${parsed.namespace}${parsed.name}`).not.toContain("/");
      }),
    );
  });
});

describe("parseStreamPath", () => {
  const base = "/v1/namespaces/default/virtualmachineinstances/testvmi";
  const vnc = (preserveSession: boolean) => ({
    namespace: "default",
    name: "testvmi",
    kind: "vnc",
    preserveSession,
  });
  it.each([
    [`${base}/console`, { namespace: "default", name: "testvmi", kind: "console", preserveSession: false }],
    [`${base}/vnc`, vnc(false)],
    [`${base}/vnc?preserveSession=true`, vnc(true)],
    [`${base}/vnc?preserveSession=1`, vnc(true)],
    [`${base}/vnc?preserveSession=false`, vnc(false)],
    // strconv.ParseBool fails: upstream logs a warning and drops the current session as by default
    [`${base}/vnc?preserveSession=yes`, vnc(false)],
    [`${base}/vnc/screenshot`, undefined],
    [`${base}/usbredir`, undefined],
  ])("%s", (url, expected) => {
    expect(parseStreamPath(url)).toEqual(expected);
  });
});

describe("ConsoleHandler.locateSerialSocket", () => {
  let dir: string;
  let podsDir: string;
  const servers: net.Server[] = [];
  const vmis = new Map<string, VirtualMachineInstance>();
  const handler = () =>
    new ConsoleHandler({ host: "node01", podsDir, getVMI: (key) => vmis.get(key), logger: silentLogger });
  const vmiDir = (podUID: string) => path.join(podsDir, podUID, PRIVATE_VOLUME_IN_POD_DIR, VMI_UID);

  /** A socket at a path longer than bind(2) accepts: bound short, then moved. */
  async function serveSocket(at: string): Promise<void> {
    const short = path.join(dir, `s${servers.length}`);
    const server = net.createServer((c) => c.end());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(short, () => resolve()));
    await mkdir(path.dirname(at), { recursive: true });
    await rename(short, at);
  }

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "c"));
    podsDir = path.join(dir, "pods");
    vmis.clear();
    vmis.set("default/testvmi", {
      metadata: { name: "testvmi", namespace: "default", uid: VMI_UID },
      spec: { domain: { devices: {} } },
      status: { phase: "Running", nodeName: "node01", activePods: { [POD_UID]: "node01" } },
    });
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
    await rm(dir, { recursive: true, force: true });
  });

  const target = { namespace: "default", name: "testvmi" };

  it("opens the serial socket in the launcher pod's private emptyDir", async () => {
    await serveSocket(path.join(vmiDir(POD_UID), SERIAL_SOCKET_NAME));
    const located = await handler().locateSerialSocket(target);
    expect("socket" in located).toBe(true);
    if ("socket" in located) {
      expect(located.socket.procPath).toMatch(/^\/proc\/self\/fd\/\d+$/);
      await located.socket.close();
    }
  });

  it("opens the VNC socket beside it, and says which one is missing", async () => {
    await serveSocket(path.join(vmiDir(POD_UID), SERIAL_SOCKET_NAME));
    expect(await handler().locateSocket(target, "vnc")).toEqual({
      refused: { code: 400, message: `Failed finding unix socket for VNC console of vmi ${VMI_UID}` },
    });
    await serveSocket(path.join(vmiDir(POD_UID), VNC_SOCKET_NAME));
    const located = await handler().locateSocket(target, "vnc");
    expect("socket" in located).toBe(true);
    if ("socket" in located) await located.socket.close();
  });

  it("answers a VMI that is not in this node's cache with upstream's 404", async () => {
    expect(await handler().locateSerialSocket({ namespace: "default", name: "other" })).toEqual({
      refused: { code: 404, message: "VMI default/other does not exist" },
    });
  });

  it("refuses a VMI whose launcher pod is on another node", async () => {
    vmis.get("default/testvmi")!.status!.activePods = { [POD_UID]: "node02" };
    expect(await handler().locateSerialSocket(target)).toEqual({
      refused: { code: 400, message: `No command socket found for vmi ${VMI_UID}` },
    });
  });

  it("refuses when there is no serial socket", async () => {
    await mkdir(vmiDir(POD_UID), { recursive: true });
    expect(await handler().locateSerialSocket(target)).toEqual({
      refused: { code: 400, message: `Failed finding unix socket for serial console of vmi ${VMI_UID}` },
    });
  });

  it("does not follow a symlink planted for the socket or a directory above it", async () => {
    // Another pod's console, which a hostile launcher pod would like to reach.
    const victim = path.join(vmiDir(OTHER_POD_UID), SERIAL_SOCKET_NAME);
    await serveSocket(victim);
    await mkdir(vmiDir(POD_UID), { recursive: true });
    await symlink(victim, path.join(vmiDir(POD_UID), SERIAL_SOCKET_NAME));
    expect(await handler().locateSerialSocket(target)).toHaveProperty("refused.code", 400);

    await rm(vmiDir(POD_UID), { recursive: true });
    await symlink(vmiDir(OTHER_POD_UID), vmiDir(POD_UID));
    expect(await handler().locateSerialSocket(target)).toHaveProperty("refused.code", 400);

    await rm(path.join(podsDir, POD_UID), { recursive: true });
    await symlink(path.join(podsDir, OTHER_POD_UID), path.join(podsDir, POD_UID));
    expect(await handler().locateSerialSocket(target)).toHaveProperty("refused.code", 400);
  });

  it("refuses a VMI UID or pod UID that is not a UID", async () => {
    vmis.get("default/testvmi")!.metadata!.uid = "../..";
    expect(await handler().locateSerialSocket(target)).toHaveProperty("refused.code", 400);
    vmis.get("default/testvmi")!.metadata!.uid = VMI_UID;
    vmis.get("default/testvmi")!.status!.activePods = { "..": "node01" };
    expect(await handler().locateSerialSocket(target)).toHaveProperty("refused.code", 400);
  });
});
