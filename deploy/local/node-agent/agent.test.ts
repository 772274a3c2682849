import { mkdtemp, rm, writeFile } from "node:fs/promises";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { newCA, newClientKeyPair, toPem } from "../../../pkg/certificates/triple.js";
import { NodeAgent } from "./agent.js";
import { FakeKubeClient } from "./fake-kube-client.js";
import { FakePodRuntime } from "./fake-pod-runtime.js";
import type { AgentFlags } from "./flags.js";
import { LOCAL_BLOCK_LABEL } from "./local-block-recycler.js";
import { silentLogger } from "./logger.js";

// The whole agent wired together over the fake apiserver and runtime: it registers, heartbeats, runs a
// pod, serves the kubelet endpoint with TLS, and a second agent on the same state adopts the pod; given
// the loop-device record, it recycles its node's Released local-block PVs.

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "kvts-agent-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const ca = await newCA("test-ca");
  const caPem = await toPem(ca);
  await writeFile(path.join(dir, "ca.crt"), caPem.certPem);
  await writeFile(path.join(dir, "ca.key"), caPem.keyPem);
  const client = await toPem(await newClientKeyPair(ca, { commonName: "kube-apiserver-kubelet-client" }));
  const flags: AgentFlags = {
    node: "node01",
    podCIDR: "10.244.1.0/24",
    kubeconfig: "unused",
    stateDir: path.join(dir, "state"),
    caCert: path.join(dir, "ca.crt"),
    caKey: path.join(dir, "ca.key"),
    nodeIP: "127.0.0.1",
    kubeletPort: 0,
    apiServiceIP: "10.96.0.1",
    apiServicePort: 443,
    clusterDNS: ["10.96.0.10"],
    clusterDomain: "cluster.local",
    resolvConf: "",
    cpus: 12,
    memory: 24 * 1024 ** 3,
    maxPods: 110,
    componentImages: "checkout",
  };
  return { dir, flags, caPem, client };
}

describe("NodeAgent", () => {
  it("registers the node, runs its pods, and a restarted agent adopts them", async () => {
    const { dir, flags } = await fixture();
    const api = new FakeKubeClient();
    const runtime = new FakePodRuntime();
    const start = async () => {
      const agent = new NodeAgent({
        flags,
        runtime,
        nodeRoot: path.join(dir, "root"),
        log: silentLogger(),
        client: api,
      });
      await agent.start();
      cleanups.push(() => agent.stop());
      return agent;
    };
    const first = await start();
    expect(api.node("node01")).toMatchObject({
      status: {
        conditions: [{}, {}, {}, { type: "Ready", status: "True" }],
        // the declared size from the flags, not the machine's
        capacity: { cpu: "12", memory: "25165824Ki", pods: "110" },
        allocatable: { cpu: "12", pods: "110" },
      },
    });
    await vi.waitFor(() => expect(api.lease("kube-node-lease", "node01")).toBeDefined());

    api.putPod({
      metadata: { name: "web", namespace: "default", uid: "u1" },
      spec: { nodeName: "node01", containers: [{ name: "app", image: "busybox", command: ["sleep", "1d"] }] },
      status: { phase: "Pending" },
    });
    await vi.waitFor(async () => expect((await api.getPod("default", "web"))?.status?.phase).toBe("Running"));
    const process = runtime.running("app");
    // ClusterFirst, as kubelet configures it from --cluster-dns and --cluster-domain
    expect(runtime.sandboxRequests.get("u1")?.dns).toEqual({
      servers: ["10.96.0.10"],
      searches: ["default.svc.cluster.local", "svc.cluster.local", "cluster.local"],
      options: ["ndots:5"],
    });
    await first.stop();

    await start();
    await new Promise((r) => setTimeout(r, 100));
    expect(runtime.processes).toHaveLength(1);
    expect(runtime.running("app")).toBe(process);
    expect(await api.getPod("default", "web")).toMatchObject({
      status: {
        phase: "Running",
        containerStatuses: [{ restartCount: 0, containerID: `kvts://${process?.id}` }],
      },
    });
  });

  it("serves /healthz over TLS on the node address to clients with a cluster-signed certificate", async () => {
    const { dir, flags, caPem, client } = await fixture();
    const agent = new NodeAgent({
      flags,
      runtime: new FakePodRuntime(),
      nodeRoot: path.join(dir, "root"),
      log: silentLogger(),
      client: new FakeKubeClient(),
    });
    await agent.start();
    cleanups.push(() => agent.stop());
    const port = agent.kubeletPort;
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(
          {
            host: "127.0.0.1",
            port,
            path: "/healthz",
            ca: caPem.certPem,
            cert: client.certPem,
            key: client.keyPem,
          },
          (res) => {
            let text = "";
            res.on("data", (c: Buffer) => (text += c.toString()));
            res.on("end", () => resolve(text));
          },
        )
        .on("error", reject);
    });
    expect(body).toBe("ok");
  });

  it("with --loop-devices, wipes its node's Released local-block PV and creates it again", async () => {
    const { dir, flags } = await fixture();
    const recordFile = path.join(dir, "loop-devices.json");
    const record = {
      node: "node01",
      index: 0,
      file: "/f/disk0.img",
      device: "/dev/loop0",
      sizeBytes: 1 << 30,
    };
    await writeFile(recordFile, JSON.stringify([record]));
    const api = new FakeKubeClient();
    api.api.seed("/persistentvolumes", {
      metadata: { name: "local-block-node01-0", uid: "old", labels: { [LOCAL_BLOCK_LABEL]: "node01" } },
      spec: { volumeMode: "Block", local: { path: "/dev/loop0" }, claimRef: { name: "gone", uid: "c" } },
      status: { phase: "Released" },
    });
    const wiped: string[] = [];
    const agent = new NodeAgent({
      flags: { ...flags, loopDevices: recordFile },
      runtime: new FakePodRuntime(),
      nodeRoot: path.join(dir, "root"),
      log: silentLogger(),
      client: api,
      loopDevices: {
        backingFile: async (device) => (device === record.device ? record.file : undefined),
        wipe: async (device) => {
          wiped.push(device);
          return { method: "blkdiscard" };
        },
      },
    });
    await agent.start();
    cleanups.push(() => agent.stop());
    await vi.waitFor(async () =>
      expect((await api.getPersistentVolume("local-block-node01-0"))?.metadata.uid).not.toBe("old"),
    );
    expect(wiped).toEqual(["/dev/loop0"]);
    expect((await api.getPersistentVolume("local-block-node01-0"))?.spec?.claimRef).toBeUndefined();
  });
});
