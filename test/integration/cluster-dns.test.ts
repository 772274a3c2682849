// Cluster DNS on the local cluster: CoreDNS (built from its Go module) behind the kube-dns Service, and
// pods whose resolv.conf the node agent wrote as kubelet does. A busybox pod resolves the kubernetes
// Service and a Service of its own namespace (short name and FQDN) through 10.96.0.10; a name outside
// the cluster does not resolve, and no packet heads for the outside meanwhile (the guard's drop counter
// stays put, and the binary has no plugin that could forward).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installClusterDNS } from "../../deploy/local/cluster/cluster-dns.js";
import { binary } from "../../deploy/local/cluster/layout.js";
import { ClusterNetwork } from "../../deploy/local/node-agent/runtime/cluster-network.js";
import { LOCAL_CLUSTER_NETWORK } from "../../deploy/local/node-agent/runtime/cluster-network-config.js";
import { runCommand } from "../../deploy/local/node-agent/runtime/exec.js";
import { cluster, ensureNodes, eventually, kubectl, kubectlOk } from "./harness.js";

const NS = "cluster-dns-it";
const SERVICE = "web";

interface PodJson {
  status: { phase?: string };
}

/** Runs `script` in a busybox pod to completion; its phase and log. */
async function runPod(name: string, script: string): Promise<{ phase: string; log: string }> {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NS },
    spec: {
      restartPolicy: "Never",
      containers: [{ name: "main", image: "busybox", command: ["sh", "-c", script] }],
    },
  };
  await kubectlOk(["apply", "-f", "-"], JSON.stringify(pod));
  const phase = await eventually(async () => {
    const json = JSON.parse(await kubectlOk(["-n", NS, "get", "pod", name, "-o", "json"])) as PodJson;
    const current = json.status.phase ?? "";
    if (current !== "Succeeded" && current !== "Failed") throw new Error(`pod ${name} is ${current}`);
    return current;
  }, 120_000);
  return { phase, log: await kubectlOk(["-n", NS, "logs", name]) };
}

/** A DNS query for `name` (type A, class IN, recursion desired, ID 0x4b56) framed for TCP. */
function tcpQuery(name: string): Buffer {
  const labels = name
    .split(".")
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
  const header = Buffer.from([0x4b, 0x56, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const message = Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}

const guard = new ClusterNetwork(LOCAL_CLUSTER_NETWORK, runCommand);

beforeAll(async () => {
  await ensureNodes();
  await installClusterDNS(cluster, (line) => console.log(`[cluster-dns] ${line}`));
  await kubectl(["delete", "namespace", NS, "--wait=true", "--ignore-not-found"]);
  await kubectlOk(["create", "namespace", NS]);
  await eventually(() => kubectlOk(["-n", NS, "get", "serviceaccount", "default"]));
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: SERVICE, namespace: NS },
    spec: { selector: { app: SERVICE }, ports: [{ port: 80, targetPort: 8080 }] },
  };
  await kubectlOk(["apply", "-f", "-"], JSON.stringify(service));
}, 600_000);

afterAll(async () => {
  await kubectl(["delete", "namespace", NS, "--wait=false", "--ignore-not-found"]);
});

describe("cluster DNS", () => {
  it("serves kube-dns at 10.96.0.10 with dns, dns-tcp and metrics, backed by ready CoreDNS pods", async () => {
    const service = JSON.parse(
      await kubectlOk(["-n", "kube-system", "get", "service", "kube-dns", "-o", "json"]),
    ) as { spec: { clusterIP: string; ports: { name: string; protocol: string; port: number }[] } };
    expect(service.spec.clusterIP).toBe("10.96.0.10");
    expect(service.spec.ports.map((p) => `${p.name}/${p.protocol}/${p.port}`)).toEqual([
      "dns/UDP/53",
      "dns-tcp/TCP/53",
      "metrics/TCP/9153",
    ]);
    const ready = await kubectlOk([
      ...["-n", "kube-system", "get", "deployment", "coredns"],
      ...["-o", "jsonpath={.status.readyReplicas}"],
    ]);
    expect(Number(ready)).toBeGreaterThanOrEqual(1);
  });

  it("resolves the kubernetes Service and a namespace's Service (short and FQDN) from a pod", async () => {
    const clusterIP = await kubectlOk([
      "-n",
      NS,
      "get",
      "service",
      SERVICE,
      "-o",
      "jsonpath={.spec.clusterIP}",
    ]);
    const script = [
      "set -e",
      "cat /etc/resolv.conf",
      "echo '--- kubernetes'",
      "nslookup kubernetes.default.svc.cluster.local",
      "echo '--- fqdn'",
      `nslookup ${SERVICE}.${NS}.svc.cluster.local`,
      "echo '--- short'",
      // busybox's nslookup asks every search domain and exits 1 when any of them is NXDOMAIN
      `nslookup ${SERVICE} || true`,
    ].join("\n");
    const { phase, log } = await runPod("lookup", script);
    expect(phase, log).toBe("Succeeded");
    const [resolvConf = "", kubernetes = "", fqdn = "", short = ""] = log.split(/^--- \w+$/m);
    // kubelet's ClusterFirst: the cluster DNS alone, the namespace's search path, ndots:5
    expect(resolvConf).toContain(`search ${NS}.svc.cluster.local svc.cluster.local cluster.local`);
    expect(resolvConf).toMatch(/^nameserver 10\.96\.0\.10$/m);
    expect(resolvConf).not.toMatch(/^nameserver (?!10\.96\.0\.10$)/m);
    expect(resolvConf).toContain("options ndots:5");
    // every answer comes from the kube-dns Service
    for (const answer of [kubernetes, fqdn, short]) expect(answer).toMatch(/Server:\s+10\.96\.0\.10/);
    expect(kubernetes).toMatch(/Address: 10\.96\.0\.1$/m);
    expect(fqdn).toMatch(new RegExp(`Address: ${clusterIP.replace(/\./g, "\\.")}$`, "m"));
    expect(short).toMatch(
      new RegExp(
        `Name:\\s+${SERVICE}\\.${NS}\\.svc\\.cluster\\.local\\nAddress: ${clusterIP.replace(/\./g, "\\.")}$`,
        "m",
      ),
    );
  });

  it("answers over TCP as well as UDP (dns-tcp through kube-proxy)", async () => {
    // busybox's nslookup only speaks UDP: send a length-prefixed query over TCP with nc instead
    const query = tcpQuery("kubernetes.default.svc.cluster.local");
    const octal = [...query].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
    const script = `(printf '${octal}'; sleep 2) | timeout 10 nc 10.96.0.10 53 | od -An -tx1`;
    const { phase, log } = await runPod("tcp", script);
    expect(phase, log).toBe("Succeeded");
    const reply = log.replace(/\s+/g, "");
    // the same transaction ID, a response without error (QR set, RCODE 0), and 10.96.0.1 as A data
    expect(reply.slice(4, 8)).toBe("4b56");
    expect(Number.parseInt(reply.slice(8, 12), 16) & 0x800f).toBe(0x8000);
    expect(reply).toContain("00010001000000"); // type A, class IN, then the TTL
    expect(reply.endsWith("00040a600001")).toBe(true);
  });

  it("does not resolve a name outside the cluster, and nothing heads for the outside", async () => {
    const dropsBefore = await guard.droppedPackets();
    const { phase, log } = await runPod(
      "outside",
      "nslookup example.com; echo rc=$?; nslookup kubevirt.io 10.96.0.10; echo rc=$?",
    );
    expect(phase, log).toBe("Succeeded");
    expect(log.match(/^rc=(\d+)$/gm)).toEqual([
      expect.not.stringMatching(/^rc=0$/),
      expect.not.stringMatching(/^rc=0$/),
    ]);
    expect(log).not.toMatch(/Name:\s+(example\.com|kubevirt\.io)/);
    expect(await guard.droppedPackets()).toBe(dropsBefore);
    const { stdout } = await promisify(execFile)(binary(cluster, "coredns"), ["-plugins"]);
    const plugins = stdout.split("\n");
    expect(plugins).toContain("kubernetes");
    expect(plugins).not.toContain("forward");
    expect(plugins).not.toContain("grpc");
  });
});
