import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer, type Reply } from "../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();
const NS = "from-context";
const SERVICES = `/api/v1/namespaces/${NS}/services`;

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

const podNetworkSpec = {
  domain: {
    devices: {
      interfaces: [
        { name: "other", bridge: {}, ports: [{ port: 9 }] },
        { name: "default", masquerade: {}, ports: [{ port: 22 }, { port: 53, protocol: "UDP" }] },
      ],
    },
  },
  networks: [
    { name: "other", multus: { networkName: "x" } },
    { name: "default", pod: {} },
  ],
};

/** Answers GETs with `object` and POSTs with the posted body; records both. */
function serve(object: Reply) {
  fixture.server.handler = (request) =>
    request.method === "GET" ? object : { status: 201, body: JSON.parse(request.body) as unknown };
}

const posted = () => {
  const post = fixture.server.requests.find((request) => request.method === "POST");
  expect(post?.path).toBe(SERVICES);
  return JSON.parse(post?.body ?? "{}") as { metadata: unknown; spec: Record<string, unknown> };
};

describe("virtctl expose creates a Service selecting the VM's launcher Pod", () => {
  it("re-uses the pod network interface's ports when --port is not given", async () => {
    serve({
      status: 200,
      body: { metadata: { name: "myvm" }, spec: { template: { spec: podNetworkSpec } } },
    });
    const result = await virtctl("expose", "vm", "myvm", "--name", "myvm-svc");
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("Service myvm-svc successfully created for vm myvm\n");
    expect(fixture.server.requests[0]?.path).toBe(
      `/apis/kubevirt.io/v1/namespaces/${NS}/virtualmachines/myvm`,
    );
    expect(posted()).toEqual({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "myvm-svc", namespace: NS },
      spec: {
        ports: [
          { name: "port-1", port: 22 },
          { name: "port-2", protocol: "UDP", port: 53 },
        ],
        selector: { "vmi.kubevirt.io/id": "myvm" },
        type: "ClusterIP",
      },
    });
  });

  it("takes --port, --target-port (number or name), --protocol, --type and the IP options", async () => {
    serve({ status: 200, body: { metadata: { name: "myvmi" }, spec: podNetworkSpec } });
    const argv = [
      "expose",
      "VMI",
      "myvmi",
      "--name=ssh",
      "--port=2222",
      "--target-port=22",
      "--protocol=udp",
    ];
    const more = ["--type=nodeport", "--ip-family=IPv4,IPv6", "--external-ip=192.0.2.7", "--cluster-ip=None"];
    expect((await virtctl(...argv, ...more, "--port-name=p")).stdout).toBe(
      "Service ssh successfully created for vmi myvmi\n",
    );
    expect(posted().spec).toEqual({
      ports: [{ name: "p", protocol: "UDP", port: 2222, targetPort: 22 }],
      selector: { "vmi.kubevirt.io/id": "myvmi" },
      type: "NodePort",
      clusterIP: "None",
      ipFamilies: ["IPv4", "IPv6"],
      ipFamilyPolicy: "PreferDualStack",
      externalIPs: ["192.0.2.7"],
    });
    fixture.server.requests.length = 0;
    await virtctl("expose", "vmi", "myvmi", "--name=web", "--port=80", "--target-port=http");
    expect(posted().spec.ports).toEqual([{ protocol: "TCP", port: 80, targetPort: "http" }]);
  });

  it("selects a long-named VM by its hashed id, as the launcher Pod is labelled", async () => {
    const name = "x".repeat(70);
    serve({ status: 200, body: { metadata: { name }, spec: {} } });
    await virtctl("expose", "vm", name, "--name=s", "--port=1");
    expect(posted().spec.selector).toEqual({
      "vmi.kubevirt.io/id": expect.stringMatching(/^x{54}-[0-9a-f]{8}$/),
    });
  });

  it("exposes a replica set by its matchLabels", async () => {
    serve({
      status: 200,
      body: { metadata: { name: "rs" }, spec: { selector: { matchLabels: { app: "a" } } } },
    });
    await virtctl("expose", "vmirs", "rs", "--name=s", "--port=1");
    expect(fixture.server.requests[0]?.path).toBe(
      `/apis/kubevirt.io/v1/namespaces/${NS}/virtualmachineinstancereplicasets/rs`,
    );
    expect(posted().spec.selector).toEqual({ app: "a" });
  });
});

describe("refusals in upstream's words", () => {
  it.each([
    { argv: ["expose", "vm", "v"], error: 'required flag(s) "name" not set' },
    { argv: ["expose", "vm", "v", "--name=s", "--protocol=sctp"], error: "unknown protocol: sctp" },
    {
      argv: ["expose", "vm", "v", "--name=s", "--type=ExternalName"],
      error: "type: ExternalName not supported",
    },
    { argv: ["expose", "vm", "v", "--name=s", "--type=x"], error: "unknown service type: x" },
    { argv: ["expose", "vm", "v", "--name=s", "--ip-family=v4"], error: "unknown IPFamily/s: v4" },
    { argv: ["expose", "vm", "v", "--name=s", "--ip-family-policy=x"], error: "unknown IPFamilyPolicy/s: x" },
  ])("$error", async ({ argv, error }) => {
    const result = await virtctl(...argv);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${error}\n`);
    expect(fixture.server.requests).toEqual([]);
  });

  it("an unknown kind, before anything is read", async () => {
    const result = await virtctl("expose", "Pod", "v", "--name=s");
    expect(result.stderr).toMatch(/^unsupported resource type: pod\n/);
    expect(fixture.server.requests.filter((request) => request.path.includes("/namespaces/"))).toEqual([]);
  });

  it.each([
    { spec: {}, error: "cannot expose VirtualMachineInstanceReplicaSet without any selector labels" },
    {
      spec: { selector: { matchLabels: { a: "b" }, matchExpressions: [{ key: "a", operator: "Exists" }] } },
      error: "cannot expose VirtualMachineInstanceReplicaSet with match expressions",
    },
  ])("a replica set: $error", async ({ spec, error }) => {
    serve({ status: 200, body: { metadata: { name: "rs" }, spec } });
    expect((await virtctl("expose", "vmirs", "rs", "--name=s", "--port=1")).stderr).toBe(`${error}\n`);
  });

  it("a VM without pod network ports and no --port", async () => {
    serve({
      status: 200,
      body: { metadata: { name: "v" }, spec: { template: { spec: { domain: { devices: {} } } } } },
    });
    const result = await virtctl("expose", "vm", "v", "--name=s");
    expect(result.stderr).toBe("couldn't find port via --port flag or introspection\n");
    expect(fixture.server.requests.filter((request) => request.method === "POST")).toEqual([]);
  });

  it("what the server refuses", async () => {
    fixture.server.handler = () => status(404, 'virtualmachines.kubevirt.io "v" not found', "NotFound");
    expect((await virtctl("expose", "vm", "v", "--name=s", "--port=1")).stderr).toMatch(
      /^error fetching VirtualMachine: virtualmachines.kubevirt.io "v" not found\n/,
    );
    fixture.server.handler = (request) =>
      request.method === "GET"
        ? { status: 200, body: { metadata: { name: "v" } } }
        : status(409, 'services "s" already exists', "AlreadyExists");
    expect((await virtctl("expose", "vm", "v", "--name=s", "--port=1")).stderr).toMatch(
      /^service creation failed: services "s" already exists\n/,
    );
  });

  it("--help prints the long description", async () => {
    const result = await virtctl("expose", "--help");
    expect(result.stdout).toMatch(/^Looks up a virtual machine instance, virtual machine or virtual machine/);
    expect(result.stdout).toContain("Usage:\n  virtctl expose (TYPE NAME) [flags]");
  });
});
