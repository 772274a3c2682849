// Who may drive VMs: a user bound to `kubevirt.io:view` reads VMs but gets 403 on start and console,
// through the aggregator exactly as upstream answers; a request straight to virt-api's port with identity
// headers but without the front proxy's client certificate is refused.
import { request } from "node:https";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleSession, applyYAML, componentPods, kubectl, kubectlOk, virtctl } from "./harness.js";

const NAMESPACE = "e2e-access";
const VM = "guarded";
let viewerKubeconfig: string;

/** A kubeconfig for the ServiceAccount `viewer`, with the admin kubeconfig's cluster. */
async function viewerConfig(token: string): Promise<string> {
  const admin = JSON.parse(await kubectlOk(["config", "view", "--raw", "-o", "json"])) as {
    clusters: { name: string; cluster: { server: string; "certificate-authority-data": string } }[];
  };
  const cluster = admin.clusters[0]!;
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [cluster],
    users: [{ name: "viewer", user: { token } }],
    contexts: [{ name: "viewer", context: { cluster: cluster.name, user: "viewer", namespace: NAMESPACE } }],
    "current-context": "viewer",
  };
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), "e2e-viewer-")), "kubeconfig");
  await writeFile(file, JSON.stringify(config));
  return file;
}

beforeAll(async () => {
  await kubectl(["create", "namespace", NAMESPACE]);
  await kubectl(["-n", NAMESPACE, "create", "serviceaccount", "viewer"]);
  await kubectl([
    "-n",
    NAMESPACE,
    "create",
    "rolebinding",
    "viewer",
    "--clusterrole=kubevirt.io:view",
    `--serviceaccount=${NAMESPACE}:viewer`,
  ]);
  await applyYAML(`
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: { name: ${VM}, namespace: ${NAMESPACE} }
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        devices:
          disks: [{ name: containerdisk, disk: { bus: virtio } }]
        memory: { guest: 64Mi }
      volumes:
        - name: containerdisk
          containerDisk: { image: kubevirt-ts/test-guest:latest }
`);
  const token = (await kubectlOk(["-n", NAMESPACE, "create", "token", "viewer"])).trim();
  viewerKubeconfig = await viewerConfig(token);
});

afterAll(async () => {
  await kubectl(["delete", "namespace", NAMESPACE, "--wait=false"]);
});

describe("a kubevirt.io:view user", () => {
  it("reads VMs", async () => {
    const result = await kubectl(["--kubeconfig", viewerKubeconfig, "get", "vm", VM, "-o", "name"]);
    expect(result.stdout.trim()).toBe(`virtualmachine.kubevirt.io/${VM}`);
  });

  it("gets 403 on start", async () => {
    const result = await virtctl(["-n", NAMESPACE, "start", VM], viewerKubeconfig);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      `virtualmachines.subresources.kubevirt.io "${VM}" is forbidden: User "system:serviceaccount:${NAMESPACE}:viewer" cannot update resource "virtualmachines/start" in API group "subresources.kubevirt.io" in the namespace "${NAMESPACE}"`,
    );
  });

  it("gets 403 on console", async () => {
    const session = new ConsoleSession(VM, NAMESPACE, viewerKubeconfig);
    const code = await session.exited;
    expect(code).not.toBe(0);
    expect(session.transcript).toContain(
      `virtualmachineinstances.subresources.kubevirt.io "${VM}" is forbidden: User "system:serviceaccount:${NAMESPACE}:viewer" cannot get resource "virtualmachineinstances/console"`,
    );
  });
});

describe("virt-api's own port", () => {
  it("refuses identity headers without the front proxy's client certificate", async () => {
    const podIP = await componentPods("virt-api", { path: "{.items[0].status.podIP}" });
    const answer = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: podIP,
          port: 8443,
          method: "PUT",
          path: `/apis/subresources.kubevirt.io/v1/namespaces/${NAMESPACE}/virtualmachines/${VM}/start`,
          headers: {
            "X-Remote-User": "system:admin",
            "X-Remote-Group": "system:masters",
            "content-length": 2,
          },
          rejectUnauthorized: false,
        },
        (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk.toString()));
          res.on("end", () => resolve({ code: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(answer.code).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({
      kind: "Status",
      message: "request is not authenticated",
    });
    expect(await kubectlOk(["-n", NAMESPACE, "get", "vm", VM, "-o", "jsonpath={.spec.runStrategy}"])).toBe(
      "Halted",
    );
  });
});
