// virtctl expand against a scripted endpoint, as upstream's expand_test.go drives it with fake clients:
// the invocation checks, both sources of the VM, both output formats, and the errors in upstream's words.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer, type RecordedRequest } from "../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();

async function virtctl(argv: string[], stdin?: string, programName = "virtctl") {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  if (stdin !== undefined) io.stdin.end(stdin);
  const code = await execute(argv, io, programName);
  return { code, stdout: io.output(), stderr: io.errors() };
}

const VM_NAME = "testvm";
const SUBRESOURCES = "/apis/subresources.kubevirt.io/v1/namespaces";
const expandSpecPath = (namespace = "from-context", name = VM_NAME) =>
  `${SUBRESOURCES}/${namespace}/virtualmachines/${name}/expand-spec`;
const expandVMSpecPath = (namespace = "from-context") => `${SUBRESOURCES}/${namespace}/expand-vm-spec`;

/** What virt-api answers: the expanded VM, without TypeMeta (client-go sets it). */
const expandedVM = {
  metadata: { name: VM_NAME, namespace: "from-context" },
  spec: {
    runStrategy: "Always",
    template: { spec: { domain: { cpu: { cores: 2 }, devices: {}, memory: { guest: "128Mi" } } } },
  },
  status: {},
};

const EXPANDED_YAML = `apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: testvm
  namespace: from-context
spec:
  runStrategy: Always
  template:
    spec:
      domain:
        cpu:
          cores: 2
        devices: {}
        memory:
          guest: 128Mi
status: {}
`;

const EXPANDED_JSON = `{
 "kind": "VirtualMachine",
 "apiVersion": "kubevirt.io/v1",
 "metadata": {
  "name": "testvm",
  "namespace": "from-context"
 },
 "spec": {
  "runStrategy": "Always",
  "template": {
   "spec": {
    "domain": {
     "cpu": {
      "cores": 2
     },
     "devices": {},
     "memory": {
      "guest": "128Mi"
     }
    }
   }
  }
 },
 "status": {}
}`;

const VM_YAML = `apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: testvm
  labels:
    version: 1
spec:
  runStrategy: Always
  instancetype:
    name: u1.small
  template:
    spec:
      domain:
        devices: {}
`;
/** VM_YAML as sent: the label's number is its text, as sigs.k8s.io/yaml reads it for a string field. */
const SENT_VM = {
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachine",
  metadata: { name: VM_NAME, labels: { version: "1" } },
  spec: {
    runStrategy: "Always",
    instancetype: { name: "u1.small" },
    template: { spec: { domain: { devices: {} } } },
  },
};

const INVALID_YAML = "apiVersion: kubevirt.io/v1kind: VirtualMachine";
const INVALID_YAML_ERROR =
  "error decoding VirtualMachine error converting YAML to JSON: yaml: mapping values are not allowed in this context";

const requests = () =>
  fixture.server.requests.map((request: RecordedRequest) => [request.method, request.path]);

let scratch = "";
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "virtctl-expand-"));
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});
const file = (name: string, content: string) => {
  const path = join(scratch, name);
  writeFileSync(path, content);
  return path;
};

describe("invocation mistakes, found before any request", () => {
  it.each([
    [[], "error invalid arguments - VirtualMachine name or file must be provided"],
    [["--vm", VM_NAME, "--output", "test-format"], "error not supported output format defined: test-format"],
    [["myvm"], "accepts 0 arg(s), received 1"],
  ])("%j", async (argv, message) => {
    const result = await virtctl(["expand", ...argv]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`${message}\nRun 'virtctl expand --help' for usage.\n`);
    expect(requests()).toEqual([]);
  });

  it("--vm and --file together", async () => {
    const result = await virtctl(["expand", "--vm", VM_NAME, "--file", "vm.yaml"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "if any flags in the group [file vm] are set none of the others can be; [file vm] were all set\n",
    );
    expect(requests()).toEqual([]);
  });

  it("checks the arguments before the flag groups, as cobra does", async () => {
    const result = await virtctl(["expand", "--vm", VM_NAME, "--file", "vm.yaml", "-o", "xml"]);
    expect(result.stderr).toBe(
      "error not supported output format defined: xml\nRun 'virtctl expand --help' for usage.\n",
    );
  });
});

describe("--vm: a stored VM, from virtualmachines/{name}/expand-spec", () => {
  it.each([
    ["the default format, YAML", [], EXPANDED_YAML],
    ["--output yaml", ["--output", "yaml"], EXPANDED_YAML],
    ["--output json, with one-space indent and no newline after it", ["--output", "json"], EXPANDED_JSON],
    ["-o=json", ["-o=json"], EXPANDED_JSON],
  ])("%s", async (_case, argv, output) => {
    fixture.server.handler = () => ({ status: 200, body: expandedVM });
    const result = await virtctl(["expand", "--vm", VM_NAME, ...argv]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(output);
    expect(requests()).toEqual([["GET", expandSpecPath()]]);
  });

  it("in the namespace given with -n", async () => {
    fixture.server.handler = () => ({ status: 200, body: expandedVM });
    expect((await virtctl(["expand", "--vm", VM_NAME, "-n", "other"])).code).toBe(0);
    expect(requests()).toEqual([["GET", expandSpecPath("other")]]);
  });

  it("an answer that is no object", async () => {
    fixture.server.handler = () => ({ status: 200, body: [] });
    const result = await virtctl(["expand", "--vm", VM_NAME]);
    expect(result.stderr).toBe(
      "error expanding VirtualMachine - testvm in namespace - from-context: json: cannot unmarshal array into Go value of type v1.VirtualMachine\n",
    );
  });

  it("a VM that does not exist", async () => {
    fixture.server.handler = () =>
      status(404, 'virtualmachine.kubevirt.io "non-existing-vm" not found', "NotFound");
    const result = await virtctl(["expand", "--vm", "non-existing-vm"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      'error expanding VirtualMachine - non-existing-vm in namespace - from-context: virtualmachine.kubevirt.io "non-existing-vm" not found\n',
    );
  });
});

describe("--file: a VM read from a file or stdin, sent to expand-vm-spec", () => {
  it.each([
    ["a YAML file", () => ["--file", file("vm.yaml", VM_YAML)], undefined],
    ["a JSON file", () => ["-f", file("vm.json", JSON.stringify(SENT_VM))], undefined],
    ["stdin", () => ["--file", "-"], VM_YAML],
  ])("%s", async (_case, argv, stdin) => {
    fixture.server.handler = () => ({ status: 200, body: expandedVM });
    const result = await virtctl(["expand", ...argv()], stdin);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(EXPANDED_YAML);
    expect(requests()).toEqual([["PUT", expandVMSpecPath()]]);
    expect(JSON.parse(fixture.server.requests[0]?.body ?? "")).toEqual(SENT_VM);
  });

  it("passes the API's refusal on with the VM's name", async () => {
    fixture.server.handler = () => status(400, "error expanding vm");
    const result = await virtctl(["expand", "--file", file("vm.yaml", VM_YAML)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "error expanding VirtualMachine - testvm in namespace - from-context: error expanding vm\n",
    );
  });

  it.each([
    [
      "a file that does not exist",
      () => ["--file", "invalid/path"],
      undefined,
      "error reading file open invalid/path: no such file or directory",
    ],
    [
      "invalid YAML in a file",
      () => ["--file", file("invalid.yaml", INVALID_YAML)],
      undefined,
      INVALID_YAML_ERROR,
    ],
    ["invalid YAML on stdin", () => ["--file", "-"], INVALID_YAML, INVALID_YAML_ERROR],
    ["empty stdin", () => ["--file", "-"], "", "error decoding VirtualMachine EOF"],
  ])("refuses %s before sending anything", async (_case, argv, stdin, message) => {
    const result = await virtctl(["expand", ...argv()], stdin);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${message}\n`);
    // Only the version check upstream makes after any failure once the client is loaded.
    expect(requests()).toEqual([["GET", "/apis/subresources.kubevirt.io"]]);
  });
});

describe("help", () => {
  it.each(["virtctl", "kubectl virt"])("as %s shows it", async (programName) => {
    const result = await virtctl(["expand", "--help"], undefined, programName);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Return the VirtualMachine object with expanded instancetype and preference.

Usage:
  ${programName} expand (VM) [flags]

Examples:
  #Expand a virtual machine called 'myvm'.
  ${programName} expand --vm myvm
  
  # Expand a virtual machine from file called myvm.yaml.
  ${programName} expand --file myvm.yaml

  # Expand a virtual machine from stdin. Press Ctrl+D (Unix) or Ctrl+Z (Windows) to signal the end of input.
  ${programName} expand --file -

  # Expand a virtual machine called myvm and display output in json format.
  ${programName} expand --vm myvm --output json
  

Flags:
  -f, --file string     If present, the Virtual Machine spec in provided file will be expanded. Mutually exclusive with "--vm" flag.
  -h, --help            help for expand
  -o, --output string   Specify a format that will be used to display output. (default "yaml")
      --vm string       Specify VirtualMachine name that should be expanded. Mutually exclusive with "--file" flag.

Use "${programName} options" for a list of global command-line options (applies to all commands).
`);
  });

  it("is listed among the commands", async () => {
    const result = await virtctl(["--help"]);
    expect(result.stdout).toContain(
      "  expand         Return the VirtualMachine object with expanded instancetype and preference.\n",
    );
  });
});
