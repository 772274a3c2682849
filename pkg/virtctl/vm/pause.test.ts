import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

const vmiPath = (name: string, subresource: string) =>
  `/apis/subresources.kubevirt.io/v1/namespaces/from-context/virtualmachineinstances/${name}/${subresource}`;
const vmObjectPath = (name: string) => `/apis/kubevirt.io/v1/namespaces/from-context/virtualmachines/${name}`;

const aVM = (runStrategy: string) => ({
  status: 200,
  body: {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "myvm", namespace: "from-context" },
    spec: { runStrategy, template: { spec: { domain: { devices: {} } } } },
  },
});

describe("pause and unpause go through the VMI's subresource", () => {
  it.each([
    { argv: ["pause", "vmi", "myvm"], verb: "pause", body: {} },
    { argv: ["unpause", "VirtualMachineInstance", "myvm"], verb: "unpause", body: {} },
    { argv: ["pause", "vmi", "myvm", "--dry-run"], verb: "pause", body: { dryRun: ["All"] } },
  ])("$argv", async ({ argv, verb, body }) => {
    const result = await virtctl(...argv);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const dryRun = "dryRun" in body ? "Dry Run execution\n" : "";
    expect(result.stdout).toBe(`${dryRun}VMI myvm was scheduled to ${verb}\n`);
    expect(fixture.server.requests.map((request) => [request.method, request.path])).toEqual([
      ["PUT", vmiPath("myvm", verb)],
    ]);
    expect(JSON.parse(fixture.server.requests[0]?.body ?? "")).toEqual(body);
  });

  it.each(["pause", "unpause"])("%s vm reads the VM, then puts to its VMI", async (verb) => {
    fixture.server.handler = (request) => (request.method === "GET" ? aVM("Always") : { status: 200 });
    const result = await virtctl(verb, "vm", "myvm");
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(`VMI myvm was scheduled to ${verb}\n`);
    expect(fixture.server.requests.map((request) => [request.method, request.path])).toEqual([
      ["GET", vmObjectPath("myvm")],
      ["PUT", vmiPath("myvm", verb)],
    ]);
  });
});

describe("errors in upstream's words", () => {
  it("a VM that cannot be read", async () => {
    fixture.server.handler = () => status(404, 'virtualmachines.kubevirt.io "myvm" not found', "NotFound");
    const result = await virtctl("pause", "vm", "myvm");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error getting VirtualMachine myvm: virtualmachines.kubevirt.io "myvm" not found\n',
    );
  });

  it.each([
    {
      strategy: "Halted",
      message: "Error pausing VirtualMachineInstance myvm. VirtualMachine myvm is not set to run",
    },
    { strategy: "Always", message: "Error pausing VirtualMachineInstance myvm, it was not found" },
  ])("pause vm without a VMI, run strategy $strategy", async ({ strategy, message }) => {
    fixture.server.handler = (request) =>
      request.method === "GET" ? aVM(strategy) : status(404, "not found", "NotFound");
    const result = await virtctl("pause", "vm", "myvm");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${message}\n`);
  });

  it.each([
    { verb: "pause", doing: "pausing", message: "VMI is already paused" },
    { verb: "unpause", doing: "unpausing", message: "VMI is not paused" },
  ])("a refused $verb prints the server's Status", async ({ verb, doing, message }) => {
    const conflict = `Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "myvm": ${message}`;
    fixture.server.handler = () => status(409, conflict, "Conflict");
    const result = await virtctl(verb, "vmi", "myvm");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`Error ${doing} VirtualMachineInstance myvm: ${conflict}\n`);
  });

  it("takes exactly two arguments", async () => {
    const result = await virtctl("pause", "myvm");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("accepts 2 arg(s), received 1\nRun 'virtctl pause --help' for usage.\n");
    expect(fixture.server.requests).toEqual([]);
  });
});
