// The node agent against the real control plane: nodes register and heartbeat, a Deployment's pods run
// on both nodes with pod IPs reachable from the host and from a pod on the other node, `kubectl logs`
// works, deletion honours the grace period, and a device plugin's resource shows up in Node capacity
// and reaches the container that asks for it.
import { readdir, readFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeStateDir } from "../../deploy/local/cluster/nodes.js";
import { stopProcesses } from "../../deploy/local/cluster/stop.js";
import { topology } from "../../deploy/local/cluster/topology.js";
import {
  DEVICE_PLUGIN_DIR,
  devicePluginPackage,
  unixAddress,
} from "../../deploy/local/node-agent/device-plugin-api.js";
import { nodeRootOf } from "../../deploy/local/node-agent/runtime-adapter.js";
import { cluster, ensureNodes, kubectl } from "./harness.js";

const NS = "node-agent-it";
const [NODE_A, NODE_B] = topology.nodes.map((n) => n.name) as [string, string];

async function kubectlOk(args: string[], input?: string): Promise<string> {
  const result = await kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

async function getJson<T>(args: string[]): Promise<T> {
  return JSON.parse(await kubectlOk([...args, "-o", "json"])) as T;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

interface PodJson {
  metadata: { name: string; uid: string };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}

const isReady = (pod: PodJson) =>
  pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True");

function apply(manifest: object): Promise<string> {
  return kubectlOk(["apply", "-f", "-"], JSON.stringify(manifest));
}

function busyboxPod(
  name: string,
  script: string,
  extra: Record<string, unknown> = {},
  podExtra: Record<string, unknown> = {},
) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NS },
    spec: {
      containers: [{ name: "main", image: "busybox", command: ["sh", "-c", script], ...extra }],
      ...podExtra,
    },
  };
}

function httpGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: 5000 }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve(body));
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on("error", reject);
  });
}

/** PIDs whose command line holds `marker`, to prove a pod's processes are gone. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

beforeAll(async () => {
  await ensureNodes();
  await kubectl(["delete", "namespace", NS, "--wait=true", "--ignore-not-found"]);
  await kubectlOk(["create", "namespace", NS]);
  // The namespace's default ServiceAccount appears shortly after the namespace.
  await until("the default service account", async () =>
    (await kubectl(["-n", NS, "get", "serviceaccount", "default"])).code === 0 ? true : undefined,
  );
}, 600_000);

afterAll(async () => {
  await kubectl(["delete", "namespace", NS, "--wait=false", "--ignore-not-found"]);
});

describe("node registration", () => {
  it("both nodes are Ready with their addresses, declared capacity and a fresh Lease", async () => {
    for (const node of topology.nodes) {
      const json = await getJson<{
        status: {
          addresses: { type: string; address: string }[];
          capacity: Record<string, string>;
          conditions: { type: string; status: string }[];
          nodeInfo: { containerRuntimeVersion: string; kubeletVersion: string };
        };
        spec: { podCIDR: string };
      }>(["get", "node", node.name]);
      const internalIP = json.status.addresses.find((a) => a.type === "InternalIP")?.address;
      expect(internalIP).toBe(node.podCIDR.replace(/0\/24$/, "1"));
      expect(json.spec.podCIDR).toBe(node.podCIDR);
      expect(json.status.capacity.pods).toBe("110");
      // the declared size (deploy/local/cluster/node-size.ts), not this machine's cores and memory
      expect(json.status.capacity.cpu).toBe("8");
      expect(json.status.capacity.memory).toBe("16Gi"); // 16777216Ki as the apiserver canonicalises it
      expect(json.status.conditions.find((c) => c.type === "Ready")?.status).toBe("True");
      expect(json.status.nodeInfo.containerRuntimeVersion).toMatch(/^kubevirt-ts:\/\//);
      const lease = await getJson<{ spec: { renewTime: string; holderIdentity: string } }>([
        "-n",
        "kube-node-lease",
        "get",
        "lease",
        node.name,
      ]);
      expect(lease.spec.holderIdentity).toBe(node.name);
      expect(Date.now() - Date.parse(lease.spec.renewTime)).toBeLessThan(40_000);
    }
  });

  it("node01 is the control-plane node (role label, no taint), node02 is not", async () => {
    const roleLabel = "node-role.kubernetes.io/control-plane";
    const nodeJson = (name: string) =>
      getJson<{ metadata: { labels?: Record<string, string> }; spec: { taints?: { key: string }[] } }>([
        "get",
        "node",
        name,
      ]);
    const first = await nodeJson(NODE_A);
    expect(first.metadata.labels?.[roleLabel]).toBe("");
    expect((first.spec.taints ?? []).filter((t) => t.key === roleLabel)).toEqual([]);
    expect((await nodeJson(NODE_B)).metadata.labels?.[roleLabel]).toBeUndefined();
    const roles = await kubectlOk(["get", "nodes", NODE_A, "--no-headers"]);
    expect(roles.split(/\s+/)[2]).toBe("control-plane");
  });
});

describe("pods", () => {
  let webPods: PodJson[] = [];

  it("runs a Deployment's pods on both nodes, with pod IPs the host reaches", async () => {
    await apply({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: NS },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: "kubernetes.io/hostname",
                whenUnsatisfiable: "DoNotSchedule",
                labelSelector: { matchLabels: { app: "web" } },
              },
            ],
            containers: [
              {
                name: "httpd",
                image: "busybox",
                command: [
                  "sh",
                  "-c",
                  'mkdir -p /tmp/www && echo "hello from $POD_NAME" > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www',
                ],
                env: [{ name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
                ports: [{ name: "http", containerPort: 8080 }],
                readinessProbe: { httpGet: { path: "/index.html", port: "http" }, periodSeconds: 1 },
              },
            ],
          },
        },
      },
    });
    webPods = await until("2 ready web pods", async () => {
      const list = await getJson<{ items: PodJson[] }>(["-n", NS, "get", "pods", "-l", "app=web"]);
      const ready = list.items.filter(isReady);
      return ready.length === 2 ? ready : undefined;
    });
    expect(new Set(webPods.map((p) => p.spec.nodeName))).toEqual(new Set([NODE_A, NODE_B]));
    for (const pod of webPods) {
      const node = topology.nodes.find((n) => n.name === pod.spec.nodeName);
      expect(pod.status.podIP?.startsWith(node?.podCIDR.replace(/0\/24$/, "") ?? "-")).toBe(true);
      expect(await httpGet(`http://${pod.status.podIP}:8080/index.html`)).toBe(
        `hello from ${pod.metadata.name}\n`,
      );
    }
    const deployment = await getJson<{ status: { availableReplicas?: number } }>([
      "-n",
      NS,
      "get",
      "deployment",
      "web",
    ]);
    expect(deployment.status.availableReplicas).toBe(2);
  });

  it("reaches a pod from a pod on the other node, and `kubectl logs` shows what the client got", async () => {
    const target = webPods.find((p) => p.spec.nodeName === NODE_A);
    expect(target?.status.podIP).toBeDefined();
    // busybox nc rather than wget: the static busybox's wget crashes without NSS libraries in the image.
    const request = `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 5 ${target?.status.podIP} 8080`;
    await apply(busyboxPod("client", request, {}, { nodeName: NODE_B, restartPolicy: "Never" }));
    const done = await until("the client pod to finish", async () => {
      const pod = await getJson<PodJson>(["-n", NS, "get", "pod", "client"]);
      return pod.status.phase === "Succeeded" || pod.status.phase === "Failed" ? pod : undefined;
    });
    const output = await kubectlOk(["-n", NS, "logs", "client"]);
    expect(done.status.phase, output).toBe("Succeeded");
    expect(output).toMatch(/^HTTP\/1\.[01] 200 OK/);
    expect(output.endsWith(`hello from ${target?.metadata.name}\n`)).toBe(true);
  });

  it("serves `kubectl logs` with --tail, --timestamps and --previous", async () => {
    await apply(busyboxPod("talker", "echo line1; echo line2; echo line3; sleep 3600"));
    await until("talker's output", async () => {
      const out = await kubectl(["-n", NS, "logs", "talker"]);
      return out.stdout === "line1\nline2\nline3\n" ? true : undefined;
    });
    expect(await kubectlOk(["-n", NS, "logs", "talker", "--tail=1"])).toBe("line3\n");
    expect(await kubectlOk(["-n", NS, "logs", "talker", "--tail=1", "--timestamps"])).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z line3\n$/,
    );
    const previous = await kubectl(["-n", NS, "logs", "talker", "--previous"]);
    expect(previous.code).not.toBe(0);
    expect(previous.stderr).toContain('previous terminated container "main" in pod "talker" not found');
  });

  it("kills a pod that ignores SIGTERM at the end of its grace period, and one that obeys it at once", async () => {
    const stubbornMarker = `stubborn-${Date.now()}`;
    const politeMarker = `polite-${Date.now()}`;
    await apply(
      busyboxPod(
        "stubborn",
        `trap '' TERM; while true; do sleep 1; done # ${stubbornMarker}`,
        {},
        { terminationGracePeriodSeconds: 3 },
      ),
    );
    await apply(
      busyboxPod(
        "polite",
        `trap 'exit 0' TERM; while true; do sleep 1; done # ${politeMarker}`,
        {},
        { terminationGracePeriodSeconds: 30 },
      ),
    );
    for (const name of ["stubborn", "polite"]) {
      await until(`${name} to run`, async () =>
        (await getJson<PodJson>(["-n", NS, "get", "pod", name])).status.phase === "Running"
          ? true
          : undefined,
      );
    }
    expect((await processesWith(stubbornMarker)).length).toBeGreaterThan(0);

    const timeDeletion = async (name: string): Promise<number> => {
      const started = Date.now();
      await kubectlOk(["-n", NS, "delete", "pod", name, "--wait=false"]);
      await until(`${name} to be gone`, async () =>
        (await kubectl(["-n", NS, "get", "pod", name])).code !== 0 ? true : undefined,
      );
      return (Date.now() - started) / 1000;
    };
    const [stubbornSeconds, politeSeconds] = await Promise.all([
      timeDeletion("stubborn"),
      timeDeletion("polite"),
    ]);
    expect(stubbornSeconds).toBeGreaterThanOrEqual(2.5);
    expect(stubbornSeconds).toBeLessThan(3 + 5);
    expect(politeSeconds).toBeLessThan(10);
    expect(await processesWith(stubbornMarker)).toEqual([]);
    expect(await processesWith(politeMarker)).toEqual([]);
  });

  it("runs a sidecar before the next init container, beside the main container, and restarts it", async () => {
    const marker = `sidecar-${Date.now()}`;
    const loop = `trap 'exit 0' TERM; while true; do sleep 1; done # ${marker}`;
    // The sidecar's first instance exits once the main container runs; the second one stays.
    const sidecarScript = [
      "n=$(cat /shared/count 2>/dev/null || echo 0); echo $((n+1)) > /shared/count",
      'echo "sidecar instance $n"; touch /shared/sidecar',
      'if [ "$n" = 0 ]; then while [ ! -f /shared/main ]; do sleep 0.2; done; exit 0; fi',
      loop,
    ].join("\n");
    await apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "with-sidecar", namespace: NS },
      spec: {
        terminationGracePeriodSeconds: 5,
        volumes: [{ name: "shared", emptyDir: {} }],
        initContainers: [
          {
            name: "sidecar",
            image: "busybox",
            restartPolicy: "Always",
            command: ["sh", "-c", sidecarScript],
            volumeMounts: [{ name: "shared", mountPath: "/shared" }],
          },
          {
            name: "setup",
            image: "busybox",
            command: ["sh", "-c", "test -f /shared/sidecar && echo setup-saw-sidecar > /shared/setup"],
            volumeMounts: [{ name: "shared", mountPath: "/shared" }],
          },
        ],
        containers: [
          {
            name: "main",
            image: "busybox",
            command: ["sh", "-c", `cat /shared/setup; touch /shared/main; ${loop}`],
            volumeMounts: [{ name: "shared", mountPath: "/shared" }],
          },
        ],
      },
    });
    interface Status {
      name: string;
      restartCount: number;
      started?: boolean;
      ready: boolean;
      containerID?: string;
      state: { running?: object; terminated?: { exitCode: number; reason: string } };
      lastState: { terminated?: { exitCode: number } };
    }
    type SidecarPod = {
      status: { phase?: string; initContainerStatuses?: Status[]; containerStatuses?: Status[] };
    };
    const statusOf = (pod: SidecarPod, name: string) =>
      [...(pod.status.initContainerStatuses ?? []), ...(pod.status.containerStatuses ?? [])].find(
        (c) => c.name === name,
      );
    const pod = await until("the sidecar's second instance and the main container to run", async () => {
      const current = await getJson<SidecarPod>(["-n", NS, "get", "pod", "with-sidecar"]);
      const sidecar = statusOf(current, "sidecar");
      return sidecar?.restartCount === 1 && sidecar.state.running && statusOf(current, "main")?.state.running
        ? current
        : undefined;
    });
    expect(pod.status.phase).toBe("Running");
    expect(statusOf(pod, "setup")).toMatchObject({
      state: { terminated: { exitCode: 0, reason: "Completed" } },
      ready: true,
    });
    expect(statusOf(pod, "sidecar")).toMatchObject({
      started: true,
      ready: true,
      lastState: { terminated: { exitCode: 0 } },
    });
    expect(statusOf(pod, "main")).toMatchObject({ restartCount: 0, ready: true });
    expect(await kubectlOk(["-n", NS, "logs", "with-sidecar", "-c", "main"])).toBe("setup-saw-sidecar\n");
    expect(await kubectlOk(["-n", NS, "logs", "with-sidecar", "-c", "sidecar"])).toBe("sidecar instance 1\n");

    // Still running a while later, beside the main container, with the same instances.
    await new Promise((r) => setTimeout(r, 3000));
    const later = await getJson<SidecarPod>(["-n", NS, "get", "pod", "with-sidecar"]);
    for (const name of ["sidecar", "main"]) {
      expect(statusOf(later, name)?.containerID).toBe(statusOf(pod, name)?.containerID);
      expect(statusOf(later, name)?.state.running).toBeDefined();
    }
    expect((await processesWith(marker)).length).toBeGreaterThan(0);

    await kubectlOk(["-n", NS, "delete", "pod", "with-sidecar", "--wait=true", "--timeout=60s"]);
    expect(await processesWith(marker)).toEqual([]);
  });
});

describe("bad input and faults", () => {
  const waitingReason = async (name: string): Promise<string | undefined> => {
    const pod = await getJson<{
      status: { containerStatuses?: { state?: { waiting?: { reason?: string } } }[] };
    }>(["-n", NS, "get", "pod", name]);
    return pod.status.containerStatuses?.[0]?.state?.waiting?.reason;
  };

  it("reports an unknown image and a command that cannot run in the container status", async () => {
    await apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "no-such-image", namespace: NS },
      spec: { containers: [{ name: "main", image: "example.invalid/nothing:1" }] },
    });
    await apply(busyboxPod("bad-command", "unused", { command: ["/no/such/binary"] }));
    await until("ErrImagePull or ImagePullBackOff", async () => {
      const reason = await waitingReason("no-such-image");
      return reason === "ErrImagePull" || reason === "ImagePullBackOff" ? reason : undefined;
    });
    await until("RunContainerError or CrashLoopBackOff", async () => {
      const reason = await waitingReason("bad-command");
      return reason === "RunContainerError" || reason === "CrashLoopBackOff" ? reason : undefined;
    });
  });

  it("keeps pods running across an agent restart, and removes a pod deleted while the agent was away", async () => {
    const keptMarker = `kept-${Date.now()}`;
    const orphanMarker = `orphan-${Date.now()}`;
    await apply(busyboxPod("kept", `sleep 3600 # ${keptMarker}`, {}, { nodeName: NODE_A }));
    await apply(busyboxPod("orphan", `sleep 3600 # ${orphanMarker}`, {}, { nodeName: NODE_A }));
    const before = await until("the kept pod to be ready", async () => {
      const pod = await getJson<PodJson & { status: { containerStatuses?: { containerID?: string }[] } }>([
        "-n",
        NS,
        "get",
        "pod",
        "kept",
      ]);
      return isReady(pod) ? pod : undefined;
    });
    await until("the orphan to run", async () =>
      (await getJson<PodJson>(["-n", NS, "get", "pod", "orphan"])).status.phase === "Running"
        ? true
        : undefined,
    );

    await stopProcesses(cluster, [`node-agent-${NODE_A}`], () => {});
    expect((await processesWith(keptMarker)).length).toBeGreaterThan(0);
    await kubectlOk(["-n", NS, "delete", "pod", "orphan", "--grace-period=0", "--force"]);
    await ensureNodes();

    await until("the orphan's process to be gone", async () =>
      (await processesWith(orphanMarker)).length === 0 ? true : undefined,
    );
    const after = await getJson<
      PodJson & { status: { containerStatuses?: { containerID?: string; restartCount?: number }[] } }
    >(["-n", NS, "get", "pod", "kept"]);
    expect(after.status.containerStatuses?.[0]?.containerID).toBe(
      before.status.containerStatuses?.[0]?.containerID,
    );
    expect(after.status.containerStatuses?.[0]?.restartCount).toBe(0);
    expect((await processesWith(keptMarker)).length).toBeGreaterThan(0);
  });
});

describe("device plugins", () => {
  const resource = "example.com/widget";
  let server: grpc.Server | undefined;
  let stream: grpc.ServerWritableStream<unknown, unknown> | undefined;

  afterAll(() => server?.forceShutdown());

  it("advertises a registered plugin's devices in Node capacity and hands them to a pod", async () => {
    const pluginDir = path.join(
      nodeRootOf(nodeStateDir(cluster, { name: NODE_A, podCIDR: "" })),
      DEVICE_PLUGIN_DIR,
    );
    const socket = path.join(pluginDir, "it-widget.sock");
    server = new grpc.Server();
    server.addService(devicePluginPackage().DevicePlugin.service, {
      GetDevicePluginOptions: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, {}),
      ListAndWatch: (call: grpc.ServerWritableStream<unknown, unknown>) => {
        stream = call;
        call.write({
          devices: [
            { ID: "w1", health: "Healthy" },
            { ID: "w2", health: "Healthy" },
          ],
        });
      },
      Allocate: (
        call: grpc.ServerUnaryCall<{ container_requests: { devices_ids: string[] }[] }, unknown>,
        cb: grpc.sendUnaryData<unknown>,
      ) => {
        const ids = call.request.container_requests[0]?.devices_ids ?? [];
        cb(null, { container_responses: [{ envs: { WIDGETS: ids.join(",") } }] });
      },
      PreStartContainer: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, {}),
    });
    await new Promise<void>((resolve, reject) =>
      server?.bindAsync(unixAddress(socket), grpc.ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    const { Registration } = devicePluginPackage();
    const registration = new Registration(
      unixAddress(path.join(pluginDir, "kubelet.sock")),
      grpc.credentials.createInsecure(),
    ) as unknown as grpc.Client & {
      Register: (req: object, cb: (err: grpc.ServiceError | null) => void) => void;
    };
    await new Promise<void>((resolve, reject) =>
      registration.Register(
        { version: "v1beta1", endpoint: "it-widget.sock", resource_name: resource },
        (err) => {
          registration.close();
          if (err) reject(err);
          else resolve();
        },
      ),
    );

    await until("the widget capacity on the node", async () => {
      const node = await getJson<{
        status: { capacity: Record<string, string>; allocatable: Record<string, string> };
      }>(["get", "node", NODE_A]);
      return node.status.capacity[resource] === "2" && node.status.allocatable[resource] === "2"
        ? true
        : undefined;
    });

    await apply(
      busyboxPod("widget-user", "echo widgets=$WIDGETS; sleep 3600", {
        resources: { limits: { [resource]: "1" } },
      }),
    );
    const pod = await until("the widget user to run", async () => {
      const p = await getJson<PodJson>(["-n", NS, "get", "pod", "widget-user"]);
      return p.status.phase === "Running" ? p : undefined;
    });
    expect(pod.spec.nodeName).toBe(NODE_A);
    await until("the allocated widget in the logs", async () =>
      /^widgets=w[12]\n$/.test((await kubectl(["-n", NS, "logs", "widget-user"])).stdout) ? true : undefined,
    );

    stream?.end();
    await until("the widgets to become unallocatable once the plugin is gone", async () => {
      const node = await getJson<{ status: { allocatable: Record<string, string> } }>([
        "get",
        "node",
        NODE_A,
      ]);
      return node.status.allocatable[resource] === "0" ? true : undefined;
    });
  });
});
