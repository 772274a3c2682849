import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImagePullError } from "../pod-runtime.js";
import type { ContainerRequest, PodRef } from "../pod-runtime.js";
import type { ClusterNetworkConfig } from "./cluster-network-config.js";
import { GUARD_COUNTERS } from "./guard-ruleset.js";
import { Cni } from "./cni.js";
import { hostInterfaces } from "./cni-result.js";
import { netnsName } from "./names.js";
import { NodeRuntime } from "./node-runtime.js";
import { CgroupTree } from "./cgroup.js";
import {
  httpGet,
  logContent,
  nftCounterTotal,
  processGone,
  rootTestsUnavailable,
  sh,
  waitFor,
  waitForLog,
} from "./root-test-support.js";
import { runnable } from "../../../../pkg/testutils/requirement.js";

// The runtime against the real kernel: two nodes on their own test bridges and CIDRs (names and ranges no
// real cluster uses), pods in network namespaces, volumes, chrooted images, graceful stops, an agent
// restart, and a final check that teardown leaves nothing behind.

const canRun = runnable("the runtime's root-level tests", rootTestsUnavailable());

const ID = randomBytes(2).toString("hex");
const PREFIX = `kt${ID}-`;
const CLUSTER: ClusterNetworkConfig = {
  tableName: `kvts_test_${ID}`,
  interfacePrefix: PREFIX,
  podRanges: ["10.244.200.0/23", "10.244.206.0/24"],
  clusterRanges: ["10.244.200.0/23", "10.244.203.0/24", "10.244.206.0/24", "127.0.0.0/8"],
  blackholeRanges: ["10.244.200.0/23", "10.244.206.0/24"],
  serviceRanges: ["10.244.203.0/24"],
  secondaryBridges: [{ name: `${PREFIX}sec1`, subnet: "10.244.206.0/24" }],
};
/** TEST-NET-1; here also the uplink's gateway, so a safety table below makes sure nothing reaches it. */
const OUTSIDE = "192.0.2.1";
const SAFETY_TABLE = `kvts_test_safety_${ID}`;
const NODES = [`a${ID}`, `b${ID}`] as const;

let base: string;
let stateDir: string;
let node1: NodeRuntime;
let node2: NodeRuntime;
const pods: Array<{ runtime: NodeRuntime; pod: PodRef }> = [];

const NO_DNS = { servers: [], searches: [], options: [] };

function newPod(runtime: NodeRuntime, name: string): PodRef {
  const pod = { uid: randomUUID(), namespace: "default", name };
  pods.push({ runtime, pod });
  return pod;
}

function request(
  pod: PodRef,
  name: string,
  image: string,
  overrides: Partial<ContainerRequest> = {},
): ContainerRequest {
  return {
    pod,
    name,
    attempt: 0,
    image: { image, imageID: "" },
    env: {},
    mounts: [],
    volumeDevices: [],
    hostMounts: [],
    devices: [],
    privileged: false,
    hostNetwork: false,
    hostPID: false,
    ...overrides,
  };
}

async function makeFakeImages(cacheDir: string, checkoutDir: string): Promise<void> {
  const guest = path.join(cacheDir, "images/test-guest");
  await mkdir(path.join(guest, "bin"), { recursive: true });
  await copyFile("/bin/busybox", path.join(guest, "bin/busybox"));
  for (const applet of ["sh", "ls", "cat", "sleep"])
    await symlink("busybox", path.join(guest, "bin", applet));
  await writeFile(path.join(guest, "guest-marker"), "this is the test guest image\n");
  // the bundle `make binaries` would build from cmd/virt-handler/main.ts
  const entry = path.join(checkoutDir, "dist/components/bin/virt-handler.mjs");
  await mkdir(path.dirname(entry), { recursive: true });
  await writeFile(
    entry,
    'const port = process.argv[3] ?? "";\nconsole.log(`virt-handler stand-in on ${port}`);\n',
  );
}

beforeAll(async () => {
  if (!canRun) return;
  base = await mkdtemp(path.join(os.tmpdir(), "kvts-runtime-"));
  stateDir = path.join(base, "state");
  const images = { cacheDir: path.join(base, "cache"), checkoutDir: path.join(base, "checkout") };
  await makeFakeImages(images.cacheDir, images.checkoutDir);
  // Defence in depth for the escape test: whatever our guard does, nothing from the test ranges may leave
  // through an interface that is not one of the test bridges.
  sh(`nft -f - <<'EOF'
table inet ${SAFETY_TABLE} {
  counter escaped { }
  chain postrouting {
    type filter hook postrouting priority 100; policy accept;
    ip saddr 10.244.200.0/23 oifname != "${PREFIX}*" counter name "escaped" drop
  }
}
EOF`);
  node1 = await NodeRuntime.create({
    nodeName: NODES[0],
    stateDir: path.join(stateDir, NODES[0]),
    podCidr: "10.244.200.0/24",
    cluster: CLUSTER,
    images,
  });
  node2 = await NodeRuntime.create({
    nodeName: NODES[1],
    stateDir: path.join(stateDir, NODES[1]),
    podCidr: "10.244.201.0/24",
    cluster: CLUSTER,
    images,
  });
}, 60_000);

afterAll(async () => {
  if (!canRun) return;
  for (const node of [node1, node2])
    await node?.teardownNode({ clusterNetwork: true }).catch(() => undefined);
  sh(`nft delete table inet ${SAFETY_TABLE} 2>/dev/null || true`);
  await rm(base, { recursive: true, force: true });
}, 60_000);

describe.runIf(canRun)("NodeRuntime as root", () => {
  let server: PodRef;
  let serverIP: string;

  it("gives a pod its own network and serves HTTP from a volume to the host", async () => {
    server = newPod(node1, "web");
    const sandbox = await node1.runSandbox({ ...server, hostNetwork: false, dns: NO_DNS });
    serverIP = sandbox.podIPs[0] as string;
    expect(serverIP).toMatch(/^10\.244\.200\.\d+$/);
    // the address is host-local's, reserved for the pod under the node's own state directory
    const bridge = `${PREFIX}${NODES[0]}`;
    const reservation = path.join(node1.layout.cniDir, "networks", bridge, serverIP);
    expect((await readFile(reservation, "utf8")).split(/\r?\n/)[0]).toBe(server.uid);
    expect(serverIP).not.toBe(node1.nodeIP);
    // the pod's eth0 holds it, with the node address as default gateway, as the conflist says
    const inPod = sh(
      `ip -n ${netnsName(PREFIX, server.uid)} -4 -o addr show dev eth0; ip -n ${netnsName(PREFIX, server.uid)} route show default`,
    );
    expect(inPod).toContain(`inet ${serverIP}/24`);
    expect(inPod).toContain(`default via ${node1.nodeIP} dev eth0`);
    // through multus (no kubeconfig here, so the cluster network only): its per-sandbox delegate cache
    // and the node conflist's result in its own libcni cache, both under the node's state directory
    const multusDir = path.join(node1.layout.cniDir, "multus");
    expect(existsSync(path.join(multusDir, server.uid))).toBe(true);
    expect(existsSync(path.join(multusDir, "results", `${bridge}-${server.uid}-eth0`))).toBe(true);
    // a second sandbox call (a restarted pod worker) adopts it rather than adding again
    expect((await node1.runSandbox({ ...server, hostNetwork: false, dns: NO_DNS })).podIPs).toEqual([
      serverIP,
    ]);
    await node1.setUpVolumes(server, [
      {
        name: "page",
        source: {
          kind: "files",
          plugin: "configMap",
          files: [{ path: "index.html", content: Buffer.from("hello from the pod\n"), mode: 0o600 }],
        },
      },
      { name: "scratch", source: { kind: "emptyDir" } },
      {
        name: "host-state",
        source: { kind: "hostPath", path: "/var/lib/kvts-test", type: "DirectoryOrCreate" },
      },
    ]);
    const pulled = await node1.pullImage("busybox");
    const mounts = [
      { volume: "page", mountPath: "/www", readOnly: true },
      { volume: "scratch", mountPath: "/data/sub", readOnly: false, subPath: "nested" },
      { volume: "host-state", mountPath: "/host", readOnly: false },
    ];
    const script =
      "stat -L -c %a /www/index.html; echo written > /host/file; echo sub > /data/sub/f; exec httpd -f -p 8080 -h /www";
    const web = await node1.startContainer(
      request(server, "httpd", pulled.image, { command: ["sh", "-c", script], mounts }),
    );
    const response = await waitFor("the pod's HTTP server", async () =>
      httpGet(serverIP, 8080, "/index.html"),
    );
    expect(response).toMatch(/^HTTP\/1\.[01] 200/);
    expect(response).toContain("hello from the pod");
    const log = await waitForLog(node1.logPath(server, "httpd", 0), /^600$/);
    expect(log).toContain("600");
    const nodeRoot = node1.layout.root;
    expect(await readFile(path.join(nodeRoot, "var/lib/kvts-test/file"), "utf8")).toBe("written\n");
    expect(existsSync("/var/lib/kvts-test")).toBe(false);
    const emptyDir = node1.layout.volumeDir(server.uid, "emptyDir", "scratch");
    expect(await readFile(path.join(emptyDir, "nested/f"), "utf8")).toBe("sub\n");
    const probe = await node1.exec(web.id, ["cat", "/www/index.html"], 2000);
    expect(probe).toEqual({ exitCode: 0, output: "hello from the pod\n" });
  });

  it("lets a pod on the other node reach it through the host, and nothing reach the outside", async () => {
    const client = newPod(node2, "client");
    await node2.runSandbox({ ...client, hostNetwork: false, dns: NO_DNS });
    await node2.setUpVolumes(client, []);
    const { image } = await node2.pullImage("busybox:1.36");
    const fetch = `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${serverIP} 8080`;
    const fetcher = await node2.startContainer(
      request(client, "fetch", image, { command: ["sh", "-c", fetch] }),
    );
    expect((await fetcher.exited).exitCode).toBe(0);
    expect(await logContent(node2.logPath(client, "fetch", 0))).toContain("hello from the pod");

    const dropsBefore = nftCounterTotal(GUARD_COUNTERS.escaped);
    const probe = `nc -w 1 ${OUTSIDE} 80 </dev/null; echo "exit=$?"`;
    const prober = await node2.startContainer(
      request(client, "probe", image, { command: ["sh", "-c", probe] }),
    );
    await prober.exited;
    expect(await logContent(node2.logPath(client, "probe", 0))).not.toContain("exit=0");
    expect(nftCounterTotal(GUARD_COUNTERS.escaped)).toBeGreaterThan(dropsBefore);
    expect(nftCounterTotal("escaped")).toBe(0); // the safety table never had to act
  });

  it("stops a container gracefully, and kills one that ignores SIGTERM when the grace period ends", async () => {
    const { image } = await node1.pullImage("busybox");
    const polite = await node1.startContainer(
      request(server, "polite", image, {
        command: ["sh", "-c", 'trap "echo got-term; exit 0" TERM; echo started; while :; do sleep 0.1; done'],
      }),
    );
    await waitForLog(node1.logPath(server, "polite", 0), /^started$/);
    let started = Date.now();
    expect((await node1.stopContainer(polite.id, 10_000), await polite.exited).exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await logContent(node1.logPath(server, "polite", 0))).toContain("got-term");

    const stubborn = await node1.startContainer(
      request(server, "stubborn", image, {
        command: ["sh", "-c", 'trap "" TERM; echo started; sleep 1000 & sleep 1000'],
      }),
    );
    await waitForLog(node1.logPath(server, "stubborn", 0), /^started$/);
    started = Date.now();
    await node1.stopContainer(stubborn.id, 1000);
    const exit = await stubborn.exited;
    const elapsed = Date.now() - started;
    expect(exit.exitCode).toBe(137);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(4000);
    expect(await processGone(stubborn.pid)).toBe(true);
  });

  it("runs a directory image chrooted: the process sees only the image", async () => {
    const { image } = await node1.pullImage("kubevirt-ts/test-guest:latest");
    const guest = await node1.startContainer(
      request(server, "guest", image, { command: ["sh", "-c", "ls /; echo listed; sleep 1000"] }),
    );
    const log = await waitForLog(node1.logPath(server, "guest", 0), /^listed$/);
    expect(log).toContain("guest-marker");
    expect(log).not.toContain("work");
    expect(log).not.toContain("usr");
    const fromHost = await readdir(`/proc/${guest.pid}/root`);
    expect(fromHost).toContain("guest-marker");
    expect(fromHost).not.toContain("usr");
    await node1.stopContainer(guest.id, 1000);
  });

  it("runs a component image's binary from the checkout, with the pod spec's command and args", async () => {
    const { image } = await node1.pullImage("quay.io/kubevirt/virt-handler:v1.5.0");
    const handler = await node1.startContainer(
      request(server, "virt-handler", image, { command: ["virt-handler"], args: ["--port", "8443"] }),
    );
    const exit = await handler.exited;
    expect(await logContent(node1.logPath(server, "virt-handler", 0))).toContain(
      "virt-handler stand-in on 8443",
    );
    expect(exit.exitCode).toBe(0);
  }, 30_000);

  it("hands a non-root container the capabilities it adds, and only those", async () => {
    const { image } = await node1.pullImage("quay.io/kubevirt/virt-handler:v1.5.0");
    const show = "id -u; grep -E '^Cap(Eff|Amb)' /proc/self/status";
    const run = async (name: string, capabilities?: { add: string[]; drop: string[] }) => {
      const container = await node1.startContainer(
        request(server, name, image, {
          command: ["/bin/sh", "-c", show],
          runAsUser: 107,
          runAsGroup: 107,
          ...(capabilities ? { capabilities } : {}),
        }),
      );
      expect((await container.exited).exitCode).toBe(0);
      return (await logContent(node1.logPath(server, name, 0))).join("\n");
    };
    // CAP_NET_BIND_SERVICE is bit 10: 0x400.
    const added = await run("caps", { add: ["NET_BIND_SERVICE"], drop: ["ALL"] });
    expect(added).toMatch(/^107$/m);
    expect(added).toMatch(/^CapEff:\s+0000000000000400$/m);
    expect(added).toMatch(/^CapAmb:\s+0000000000000400$/m);
    const none = await run("no-caps");
    expect(none).toMatch(/^CapEff:\s+0000000000000000$/m);
  }, 30_000);

  it("fails clearly for unknown images and commands", async () => {
    await expect(node1.pullImage("nginx")).rejects.toBeInstanceOf(ImagePullError);
    const { image } = await node1.pullImage("busybox");
    await expect(
      node1.startContainer(request(server, "bad", image, { command: ["no-such-tool"] })),
    ).rejects.toThrow('exec: "no-such-tool": executable file not found in $PATH');
  });

  it("hands running containers to a restarted agent, which still learns how they end", async () => {
    const { image } = await node1.pullImage("busybox");
    const survivor = await node1.startContainer(
      request(server, "survivor", image, {
        command: ["sh", "-c", 'trap "echo bye; exit 3" TERM; echo alive; while :; do sleep 0.1; done'],
      }),
    );
    await waitForLog(node1.logPath(server, "survivor", 0), /^alive$/);
    const restarted = await NodeRuntime.create({
      nodeName: NODES[0],
      stateDir: path.join(stateDir, NODES[0]),
      podCidr: "10.244.200.0/24",
      cluster: CLUSTER,
      images: { cacheDir: path.join(base, "cache"), checkoutDir: path.join(base, "checkout") },
    });
    const recovered = (await restarted.recoverContainers()).find((c) => c.id === survivor.id);
    expect(recovered?.process?.pid).toBe(survivor.pid);
    expect((await restarted.recoverPods()).map((pod) => pod.uid)).toContain(server.uid);
    await restarted.stopContainer(survivor.id, 5000);
    expect((await (recovered?.process?.exited as Promise<{ exitCode: number }>)).exitCode).toBe(3);
    await waitForLog(node1.logPath(server, "survivor", 0), /^bye$/);
  });

  it("runs hostNetwork pods in the node's network, with kubelet's host-network hosts file", async () => {
    const pod = newPod(node1, "host-net");
    expect((await node1.runSandbox({ ...pod, hostNetwork: true, dns: NO_DNS })).podIPs).toEqual([
      node1.nodeIP,
    ]);
    const { image } = await node1.pullImage("busybox");
    const show = "ip -4 addr; head -n 1 /etc/hosts; cat /etc/hostname; cat /etc/resolv.conf";
    const container = await node1.startContainer(
      request(pod, "show", image, { hostNetwork: true, command: ["sh", "-c", show] }),
    );
    expect((await container.exited).exitCode).toBe(0);
    const log = (await logContent(node1.logPath(pod, "show", 0))).join("\n");
    expect(log).toContain(`inet ${node1.nodeIP}/24`);
    expect(log).toContain("# Kubernetes-managed hosts file (host network).");
    expect(log).toContain(NODES[0]);
    // no DNS settings: the node's own resolv.conf, as containerd copies it
    expect(log).toContain((await readFile("/etc/resolv.conf", "utf8")).trim());
  });

  it("gives a pod with its own network its own hostname (its name) and resolv.conf, leaving the host's alone", async () => {
    const pod = newPod(node1, "named");
    const dns = { servers: ["10.96.0.10"], searches: ["default.svc.cluster.local"], options: ["ndots:5"] };
    await node1.runSandbox({ ...pod, hostNetwork: false, dns });
    await node1.setUpVolumes(pod, []);
    const { image } = await node1.pullImage("busybox");
    const container = await node1.startContainer(
      request(pod, "show", image, { command: ["sh", "-c", "hostname; cat /etc/resolv.conf"] }),
    );
    expect((await container.exited).exitCode).toBe(0);
    expect(await logContent(node1.logPath(pod, "show", 0))).toEqual([
      pod.name,
      "search default.svc.cluster.local",
      "nameserver 10.96.0.10",
      "options ndots:5",
    ]);
    expect(sh("hostname").trim()).not.toBe(pod.name);
  });

  it("releases a pod's address on removal, also when its network namespace is already gone", async () => {
    const pod = newPod(node2, "short-lived");
    const [podIP] = (await node2.runSandbox({ ...pod, hostNetwork: false, dns: NO_DNS })).podIPs;
    const reservation = path.join(node2.layout.cniDir, "networks", `${PREFIX}${NODES[1]}`, podIP as string);
    expect(existsSync(reservation)).toBe(true);
    sh(`ip netns delete ${netnsName(PREFIX, pod.uid)}`);
    await node2.removePod(pod);
    expect(existsSync(reservation)).toBe(false);
    // multus's DEL consumed its own cache for the sandbox, and libcni's for the delegate
    const multusDir = path.join(node2.layout.cniDir, "multus");
    expect(existsSync(path.join(multusDir, pod.uid))).toBe(false);
    expect(await readdir(path.join(multusDir, "results"))).not.toContain(
      `${PREFIX}${NODES[1]}-${pod.uid}-eth0`,
    );
    await node2.removePod(pod); // CNI DEL is idempotent
    expect(sh("ip netns list")).not.toContain(netnsName(PREFIX, pod.uid));
  });

  it("makes the secondary networks' bridge without any host address", async () => {
    const bridge = `${PREFIX}sec1`;
    // administratively up (without ports it has no carrier yet)
    expect(sh(`ip -o link show dev ${bridge}`)).toMatch(/<[^>]*\bUP\b[^>]*>/);
    expect(sh(`ip -o addr show dev ${bridge}`)).toBe("");
    expect((await readFile(`/proc/sys/net/ipv6/conf/${bridge}/disable_ipv6`, "utf8")).trim()).toBe("1");
    // routed nowhere from the host: the blackhole covers its range
    expect(sh("ip route show type blackhole")).toContain("10.244.206.0/24");
  });

  it("tears everything down: no namespace, link, route, mount, table or process is left", async () => {
    const pids: number[] = [];
    // the host ends of the pods' veths, which the bridge plugin named
    const hostVeths: string[] = [];
    for (const node of [node1, node2]) {
      const cni = new Cni({ binDir: "/nonexistent", cacheDir: path.join(node.layout.cniDir, "cache") });
      for (const cached of await cni.cachedNetworks()) hostVeths.push(...hostInterfaces(cached.result));
    }
    expect(hostVeths.some((name) => name.startsWith("veth"))).toBe(true);
    for (const node of [node1, node2]) {
      for (const container of await node.recoverContainers())
        if (container.process) pids.push(container.process.pid);
      await node.teardownNode({ clusterNetwork: true });
    }
    expect(sh("ip netns list")).not.toContain(PREFIX);
    const links = sh("ip -o link show");
    expect(links).not.toContain(PREFIX);
    for (const veth of hostVeths) expect(links).not.toContain(`${veth}@`);
    expect(sh("ip route show")).not.toMatch(/10\.244\.20[0-6]\./);
    expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(base);
    expect(sh("nft list tables")).not.toContain(CLUSTER.tableName);
    for (const pid of pids) expect(await processGone(pid)).toBe(true);
    const cgroups = await CgroupTree.detect();
    if (cgroups) for (const node of NODES) expect(existsSync(cgroups.pathOf([node]))).toBe(false);
    expect(existsSync(node1.layout.podDir(server.uid))).toBe(false);
  });
});
