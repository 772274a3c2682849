import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runnable } from "../../../../pkg/testutils/requirement.js";
import { Cni } from "./cni.js";
import type { CniRuntimeConf } from "./cni.js";
import type { Conflist } from "./cni-config.js";
import { podAddresses } from "./cni-result.js";
import { defaultCacheDir } from "./image-store.js";

// The CNI runner against plugins that are shell scripts recording what they were given (so every
// variable, stdin and call order is visible), and against the real host-local plugin, which needs no
// root: it only writes its reservation files.

let base: string;
let binDir: string;
let calls: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-cni-"));
  binDir = path.join(base, "bin");
  calls = path.join(base, "calls");
  await mkdir(binDir);
  await mkdir(calls);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A plugin that records its environment and stdin per call, then prints `stdout` and exits `exit`. */
async function fakePlugin(type: string, stdout: string, exit = 0): Promise<void> {
  const script = [
    "#!/bin/sh",
    `n=$(ls ${calls} | wc -l)`,
    `env | sort > ${calls}/$n-${type}-$CNI_COMMAND.env`,
    `cat > ${calls}/$n-${type}-$CNI_COMMAND.stdin`,
    `printf '%s' '${stdout}'`,
    `exit ${exit}`,
    "",
  ].join("\n");
  await writeFile(path.join(binDir, type), script);
  await chmod(path.join(binDir, type), 0o755);
}

async function recorded(): Promise<Array<{ call: string; env: string; stdin: Record<string, unknown> }>> {
  const names = (await readdir(calls)).filter((name) => name.endsWith(".env"));
  names.sort((a, b) => Number(a.split("-")[0]) - Number(b.split("-")[0]));
  return Promise.all(
    names.map(async (name) => {
      const stem = name.slice(0, -".env".length);
      return {
        call: stem.split("-").slice(1).join("-"),
        env: await readFile(path.join(calls, name), "utf8"),
        stdin: JSON.parse(await readFile(path.join(calls, `${stem}.stdin`), "utf8")) as Record<
          string,
          unknown
        >,
      };
    }),
  );
}

const FIRST_RESULT = JSON.stringify({
  cniVersion: "1.0.0",
  interfaces: [{ name: "eth0", sandbox: "/run/netns/x" }],
  ips: [{ interface: 0, address: "10.9.0.5/24" }],
});
const SECOND_RESULT = JSON.stringify({
  cniVersion: "1.0.0",
  interfaces: [{ name: "eth0", sandbox: "/run/netns/x" }],
  ips: [{ interface: 0, address: "10.9.0.6/24" }],
});

const LIST: Conflist = {
  cniVersion: "1.0.0",
  name: "testnet",
  plugins: [{ type: "first", setting: 1 }, { type: "second" }],
};
const RT: CniRuntimeConf = {
  containerID: "pod-1",
  netns: "/run/netns/x",
  ifName: "eth0",
  args: [
    ["IgnoreUnknown", "1"],
    ["K8S_POD_NAME", "web"],
  ],
};

describe("Cni", () => {
  it("runs ADD in order with the spec's variables, the list's name and version, and prevResult", async () => {
    await fakePlugin("first", FIRST_RESULT);
    await fakePlugin("second", SECOND_RESULT);
    const cni = new Cni({ binDir, cacheDir: path.join(base, "cache") });
    const result = await cni.add(LIST, RT);
    expect(podAddresses(result, "eth0")).toEqual(["10.9.0.6"]);
    const [first, second] = await recorded();
    expect(first?.call).toBe("first-ADD");
    for (const line of [
      "CNI_COMMAND=ADD",
      "CNI_CONTAINERID=pod-1",
      "CNI_NETNS=/run/netns/x",
      "CNI_IFNAME=eth0",
      "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAME=web",
      `CNI_PATH=${binDir}`,
    ]) {
      expect(first?.env.split("\n")).toContain(line);
    }
    expect(first?.stdin).toEqual({ type: "first", setting: 1, name: "testnet", cniVersion: "1.0.0" });
    expect(second?.call).toBe("second-ADD");
    expect(second?.stdin).toEqual({
      type: "second",
      name: "testnet",
      cniVersion: "1.0.0",
      prevResult: JSON.parse(FIRST_RESULT),
    });
  });

  it("caches the result with the configuration used, in libcni's layout", async () => {
    await fakePlugin("first", FIRST_RESULT);
    await fakePlugin("second", SECOND_RESULT);
    const cacheDir = path.join(base, "cache");
    const cni = new Cni({ binDir, cacheDir });
    await cni.add(LIST, RT);
    const record = JSON.parse(await readFile(path.join(cacheDir, "results/testnet-pod-1-eth0"), "utf8"));
    expect(record).toMatchObject({
      kind: "cniCacheV1",
      containerId: "pod-1",
      ifName: "eth0",
      networkName: "testnet",
      netns: "/run/netns/x",
      cniArgs: RT.args,
      result: JSON.parse(SECOND_RESULT),
    });
    expect(JSON.parse(Buffer.from(record.config, "base64").toString())).toEqual(LIST);
    expect((await cni.cachedNetworks()).map((n) => [n.networkName, n.containerID])).toEqual([
      ["testnet", "pod-1"],
    ]);
  });

  it("runs DEL in reverse with the cached configuration and result, then drops the cache", async () => {
    await fakePlugin("first", FIRST_RESULT);
    await fakePlugin("second", SECOND_RESULT);
    const cacheDir = path.join(base, "cache");
    const cni = new Cni({ binDir, cacheDir });
    await cni.add(LIST, RT);
    await rm(calls, { recursive: true });
    await mkdir(calls);
    // the node's configuration changed since: DEL still undoes what ADD did
    const changed: Conflist = { ...LIST, plugins: [{ type: "first", setting: 2 }, { type: "second" }] };
    await cni.del(changed, { ...RT, args: [] });
    const [second, first] = await recorded();
    expect([second?.call, first?.call]).toEqual(["second-DEL", "first-DEL"]);
    expect(first?.stdin).toEqual({
      type: "first",
      setting: 1,
      name: "testnet",
      cniVersion: "1.0.0",
      prevResult: JSON.parse(SECOND_RESULT),
    });
    expect(first?.env).toContain("CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAME=web");
    expect(existsSync(path.join(cacheDir, "results/testnet-pod-1-eth0"))).toBe(false);
    expect(await cni.cachedNetworks()).toEqual([]);
  });

  it("runs DEL without prevResult and with the current configuration when nothing is cached", async () => {
    await fakePlugin("first", "");
    await fakePlugin("second", "");
    await new Cni({ binDir, cacheDir: path.join(base, "cache") }).del(LIST, RT);
    const [second, first] = await recorded();
    expect(second?.stdin).toEqual({ type: "second", name: "testnet", cniVersion: "1.0.0" });
    expect(first?.stdin).toEqual({ type: "first", setting: 1, name: "testnet", cniVersion: "1.0.0" });
  });

  it("reports a plugin's error object with the plugin's type, and caches nothing", async () => {
    await fakePlugin("first", FIRST_RESULT);
    await fakePlugin("second", '{"cniVersion":"1.0.0","code":7,"msg":"bad config","details":"no bridge"}', 1);
    const cni = new Cni({ binDir, cacheDir: path.join(base, "cache") });
    const failure = cni.add(LIST, RT);
    await expect(failure).rejects.toThrow('plugin type="second" failed (add): bad config; no bridge');
    await expect(failure).rejects.toMatchObject({ code: 7 });
    expect(await cni.cachedNetworks()).toEqual([]);
  });

  it("kills a plugin that does not answer in time together with the delegate it started", async () => {
    // a meta plugin (as multus) whose delegate hangs: both must go when the deadline passes
    const delegatePid = path.join(base, "delegate.pid");
    await writeFile(path.join(binDir, "first"), `#!/bin/sh\nsleep 300 &\necho $! > ${delegatePid}\nwait\n`);
    await chmod(path.join(binDir, "first"), 0o755);
    const cni = new Cni({ binDir, cacheDir: path.join(base, "cache"), timeoutMs: 500 });
    const started = Date.now();
    await expect(cni.add(LIST, RT)).rejects.toThrow(
      'plugin type="first" failed (add): no answer within 0.5s: killed with its children',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    const pid = Number(await readFile(delegatePid, "utf8"));
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
    // gone, or a zombie waiting for init to reap it
    expect(stat === undefined || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")).toBe(true);
    expect(await cni.cachedNetworks()).toEqual([]);
  });

  it("names a missing plugin and the folder it was looked for in", async () => {
    const cni = new Cni({ binDir, cacheDir: path.join(base, "cache") });
    await expect(cni.add(LIST, RT)).rejects.toThrow(
      `plugin type="first" failed (add): failed to find plugin "first" in path [${binDir}]`,
    );
  });

  it("refuses IDs and names CNI does not allow before running anything", async () => {
    const cni = new Cni({ binDir, cacheDir: path.join(base, "cache") });
    await expect(cni.add(LIST, { ...RT, containerID: "../x" })).rejects.toThrow(
      'invalid container ID "../x"',
    );
    await expect(cni.add(LIST, { ...RT, ifName: "a-name-longer-than-15" })).rejects.toThrow(
      "invalid interface name",
    );
  });
});

const hostLocalBinary = path.join(defaultCacheDir(), "bin/cni/host-local");
const canRunHostLocal = runnable(
  "the CNI tests with the real host-local plugin",
  existsSync(hostLocalBinary)
    ? undefined
    : `${hostLocalBinary} is missing (deploy/local/build-binaries.sh cni-plugins builds it)`,
);

describe.runIf(canRunHostLocal)("Cni with the real host-local plugin", () => {
  function hostLocalList(dataDir: string, subnet: string, gateway: string): Conflist {
    const ipam = { type: "host-local", dataDir, ranges: [[{ subnet, gateway }]] };
    return { cniVersion: "1.0.0", name: "hl-test", plugins: [{ type: "host-local", ipam }] };
  }

  it("hands out addresses after the gateway, releases them on DEL, and says when the range is exhausted", async () => {
    const dataDir = path.join(base, "networks");
    const cni = new Cni({ binDir: path.dirname(hostLocalBinary), cacheDir: path.join(base, "cache") });
    const list = hostLocalList(dataDir, "10.250.0.0/29", "10.250.0.1");
    const addresses: string[] = [];
    for (let n = 0; n < 5; n++) {
      const result = await cni.add(list, { ...RT, containerID: `pod-${n}` });
      addresses.push(...podAddresses(result, "eth0"));
    }
    expect(addresses).toEqual(["10.250.0.2", "10.250.0.3", "10.250.0.4", "10.250.0.5", "10.250.0.6"]);
    expect(existsSync(path.join(dataDir, "hl-test/10.250.0.2"))).toBe(true);
    await expect(cni.add(list, { ...RT, containerID: "pod-5" })).rejects.toThrow(
      'plugin type="host-local" failed (add): failed to allocate for range 0: no IP addresses available in range set: 10.250.0.1-10.250.0.6',
    );
    await cni.del(list, { ...RT, containerID: "pod-0" });
    await cni.del(list, { ...RT, containerID: "pod-0" }); // idempotent
    expect(existsSync(path.join(dataDir, "hl-test/10.250.0.2"))).toBe(false);
    const again = await cni.add(list, { ...RT, containerID: "pod-6" });
    expect(podAddresses(again, "eth0")).toEqual(["10.250.0.2"]);
  });
});
