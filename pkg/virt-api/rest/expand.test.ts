// expand-spec and expand-vm-spec for real: virt-api's HTTPS server (front-proxy authentication and a
// SubjectAccessReview stand-in) over an in-memory VM store, as upstream's expand_test.go drives its
// handlers, for both API versions.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../api/generated/v1.js";
import { Path } from "../../api/field.js";
import { Conflict } from "../../instancetype/conflict/conflicts.js";
import { Expander, type VMIApplier } from "../../instancetype/expand/expand.js";
import { clientFinders } from "../../instancetype/find/client.js";
import { KubeClient } from "../../controller/client.js";
import { FakeApiServer } from "../../controller/testing/fake-apiserver.js";
import { ClusterConfig } from "../../virt-config/cluster-config.js";
import { ExpandSpecApp } from "./expand.js";
import type { Status } from "./status.js";
import { startHandlerStack, type HandlerStack } from "./testing/handler-stack.js";

const VM_NAME = "test-vm";
const NAMESPACE = "test-namespace";
const VERSIONS = ["v1", "v1alpha3"] as const;

const base = (version: string) => `/apis/subresources.kubevirt.io/${version}/namespaces/${NAMESPACE}`;
const expandSpecPath = (version: string, name = VM_NAME) =>
  `${base(version)}/virtualmachines/${name}/expand-spec`;
const expandVMSpecPath = (version: string) => `${base(version)}/expand-vm-spec`;

const testVM = (): VirtualMachine => ({
  metadata: { name: VM_NAME, namespace: NAMESPACE },
  spec: {
    template: {
      spec: { domain: { devices: {} }, volumes: [{ name: "volumeName", emptyDisk: { capacity: "1Gi" } }] },
    },
  },
});

let stack: HandlerStack;
const vms = new Map<string, VirtualMachine>();
let storeFails: Error | undefined;
let expander: Expander;

/** The instancetype work's part, as a test plugs it in: 2 guest CPUs, and sockets the VM set conflict. */
const pluggedExpander = () => {
  const applier: VMIApplier = {
    applyToVMI: (field, instancetypeSpec, _preference, spec) => {
      if (spec.domain.cpu?.sockets !== undefined)
        return [new Conflict(field.child("domain", "cpu", "sockets"))];
      spec.domain.cpu = { cores: instancetypeSpec?.cpu.guest ?? 0 };
      return [];
    },
  };
  return new Expander(
    () => ClusterConfig.defaults(),
    { find: async () => ({ cpu: { guest: 2 }, memory: { guest: "128Mi" } }) },
    { findPreference: async () => undefined },
    applier,
  );
};

/** The real finders, over an apiserver holding no instance types or preferences. */
const emptyClusterExpander = () => {
  const finders = clientFinders(new KubeClient(new FakeApiServer()));
  return new Expander(() => ClusterConfig.defaults(), finders.instancetype, finders.preference);
};

beforeAll(async () => {
  stack = await startHandlerStack({
    api: () => ({
      // The expander is swapped per test: the app is made per request.
      expand: {
        expandVM: (namespace, name) => app().expandVM(namespace, name),
        expandSpec: (namespace, body) => app().expandSpec(namespace, body),
      },
    }),
  });
});
afterAll(async () => {
  await stack.stop();
});
beforeEach(() => {
  vms.clear();
  storeFails = undefined;
  expander = emptyClusterExpander();
  stack.allow = true;
  stack.reviews.length = 0;
});

const app = () =>
  new ExpandSpecApp(
    {
      getVM: async (namespace, name) => {
        if (storeFails) throw storeFails;
        const vm = vms.get(name);
        return vm?.metadata?.namespace === namespace ? structuredClone(vm) : undefined;
      },
    },
    expander,
  );

async function call(method: string, path: string, body?: string, headers?: Record<string, string>) {
  const answer = await stack.call(method, path, body, headers);
  return {
    code: answer.code,
    type: answer.type,
    body: answer.body ? (JSON.parse(answer.body) as unknown) : undefined,
  };
}

const status = (body: unknown) => body as Status;

describe.each(VERSIONS)("GET virtualmachines/{name}/expand-spec (%s)", (version) => {
  it("answers a VM without instancetype or preference as it is", async () => {
    vms.set(VM_NAME, testVM());
    const answer = await call("GET", expandSpecPath(version));
    expect(answer.code).toBe(200);
    expect(answer.type).toMatch(/^application\/json/);
    expect(answer.body).toEqual(testVM());
  });

  it("expands the VM with the instancetype work's finders plugged in", async () => {
    expander = pluggedExpander();
    vms.set(VM_NAME, { ...testVM(), spec: { ...testVM().spec, instancetype: { name: "u1.small" } } });
    const answer = await call("GET", expandSpecPath(version));
    expect(answer.code).toBe(200);
    const vm = answer.body as VirtualMachine;
    expect(vm.spec.instancetype).toBeUndefined();
    expect(vm.spec.template.spec?.domain.cpu?.cores).toBe(2);
    expect(vm.spec.template.spec?.domain.devices.disks).toEqual([{ name: "volumeName" }]);
    expect(vm.spec.template.spec?.networks).toEqual([{ name: "default", pod: {} }]);
  });

  it("answers a missing VM with upstream's NotFound", async () => {
    const answer = await call("GET", expandSpecPath(version, "nonexistent-vm"));
    expect(answer.code).toBe(404);
    expect(answer.body).toMatchObject({
      kind: "Status",
      reason: "NotFound",
      message: 'virtualmachine.kubevirt.io "nonexistent-vm" not found',
      details: { name: "nonexistent-vm", group: "kubevirt.io", kind: "virtualmachine" },
    });
  });

  it("answers a failed lookup as an InternalError", async () => {
    storeFails = new Error("connection refused");
    const answer = await call("GET", expandSpecPath(version));
    expect(answer.code).toBe(500);
    expect(status(answer.body).message).toBe(
      `Internal error occurred: unable to retrieve vm [${VM_NAME}]: connection refused`,
    );
  });

  it.each([
    ["instance type", "virtualmachineclusterinstancetypes", { instancetype: { name: "u1.small" } }],
    ["preference", "virtualmachineclusterpreferences", { preference: { name: "u1.small" } }],
  ])(
    "answers a missing %s as an InternalError with the lookup's NotFound",
    async (_what, plural, references) => {
      vms.set(VM_NAME, { ...testVM(), spec: { ...testVM().spec, ...references } });
      const answer = await call("GET", expandSpecPath(version));
      expect(answer.code).toBe(500);
      expect(answer.body).toMatchObject({
        reason: "InternalError",
        // The in-memory apiserver leaves the group out of its NotFound; a real one names it.
        message: expect.stringMatching(
          new RegExp(
            `^Internal error occurred: ${plural}(\\.instancetype\\.kubevirt\\.io)? "u1\\.small" not found$`,
          ),
        ),
      });
    },
  );

  it("answers a conflict with the instance type as an InternalError", async () => {
    expander = pluggedExpander();
    const vm = testVM();
    vm.spec.instancetype = { name: "u1.small" };
    vm.spec.template.spec!.domain.cpu = { sockets: 4 };
    vms.set(VM_NAME, vm);
    const answer = await call("GET", expandSpecPath(version));
    expect(answer.code).toBe(500);
    expect(status(answer.body).message).toContain(
      new Conflict(Path.of("spec", "template", "spec", "domain", "cpu", "sockets")).error(),
    );
  });

  it("asks the SubjectAccessReview for get on virtualmachines/expand-spec, and refuses when it says no", async () => {
    vms.set(VM_NAME, testVM());
    stack.allow = false;
    const answer = await call("GET", expandSpecPath(version));
    expect(answer.code).toBe(403);
    expect(status(answer.body).message).toBe(
      `virtualmachines.subresources.kubevirt.io "${VM_NAME}" is forbidden: User "alice" cannot get resource "virtualmachines/expand-spec" in API group "subresources.kubevirt.io" in the namespace "${NAMESPACE}": no RBAC policy matched`,
    );
    expect(stack.reviews.map((review) => review.spec.resourceAttributes)).toEqual([
      {
        namespace: NAMESPACE,
        verb: "get",
        group: "subresources.kubevirt.io",
        version,
        resource: "virtualmachines",
        subresource: "expand-spec",
        name: VM_NAME,
      },
    ]);
  });
});

describe.each(VERSIONS)("PUT expand-vm-spec (%s)", (version) => {
  const put = (body: string, headers?: Record<string, string>) =>
    call("PUT", expandVMSpecPath(version), body, headers);
  const badRequest = (message: string) => ({ kind: "Status", code: 400, reason: "BadRequest", message });

  it("answers a VM without instancetype or preference as sent, in the request's namespace", async () => {
    const { metadata, ...rest } = testVM();
    const answer = await put(JSON.stringify({ ...rest, metadata: { name: metadata?.name } }));
    expect(answer.code).toBe(200);
    expect(answer.body).toEqual(testVM());
  });

  it("takes a VM that names the request's namespace", async () => {
    const answer = await put(JSON.stringify(testVM()));
    expect(answer.code).toBe(200);
    expect(answer.body).toEqual(testVM());
  });

  it("expands a VM with the instancetype work's finders plugged in", async () => {
    expander = pluggedExpander();
    const answer = await put(
      JSON.stringify({ ...testVM(), spec: { ...testVM().spec, instancetype: { name: "u1.small" } } }),
    );
    expect(answer.code).toBe(200);
    expect((answer.body as VirtualMachine).spec.template.spec?.domain.cpu).toEqual({ cores: 2 });
  });

  it.each([
    // Go's server hands the handler an empty body, never none: it fails to decode.
    ["an empty body", "", "Can not unmarshal Request body to struct, error: unexpected end of JSON input"],
    [
      "invalid JSON",
      "this is invalid JSON {{{{",
      "Can not unmarshal Request body to struct, error: invalid character 'h' in literal true (expecting 'r')",
    ],
    [
      "JSON that is no object",
      "[1,2]",
      "Can not unmarshal Request body to struct, error: json: cannot unmarshal array into Go value of type map[string]interface {}",
    ],
    [
      "metadata Go cannot decode",
      JSON.stringify({ ...testVM(), metadata: { name: 5 } }),
      "Can not unmarshal Request body to struct, error: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string",
    ],
    [
      "a VM of another namespace",
      JSON.stringify({ ...testVM(), metadata: { name: VM_NAME, namespace: "madethisup" } }),
      `VM namespace must be empty or ${NAMESPACE}`,
    ],
    [
      "a VM whose instance type is missing",
      JSON.stringify({ ...testVM(), spec: { ...testVM().spec, instancetype: { name: "u1.small" } } }),
      'virtualmachineclusterinstancetypes "u1.small" not found',
    ],
    [
      "a VM whose preference is missing",
      JSON.stringify({ ...testVM(), spec: { ...testVM().spec, preference: { name: "fedora" } } }),
      'virtualmachineclusterpreferences "fedora" not found',
    ],
  ])("refuses %s", async (_case, body, message) => {
    const answer = await put(body);
    expect(answer.code).toBe(400);
    expect(answer.body).toEqual({
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      ...badRequest(message),
    });
  });

  it("refuses an object that is not a VirtualMachine, with the validation's findings as causes", async () => {
    const answer = await put(JSON.stringify({ stringField: "test", intField: 10 }));
    expect(answer.code).toBe(400);
    expect(answer.body).toMatchObject({
      ...badRequest("Object is not a valid VirtualMachine"),
      details: {
        causes: [
          { message: ".stringField in body is a forbidden property" },
          { message: ".intField in body is a forbidden property" },
          { message: "spec in body is required" },
          { message: 'spec in body must be of type object: "null"' },
        ],
      },
    });
  });

  it("answers a conflict with the instance type as a BadRequest", async () => {
    expander = pluggedExpander();
    const vm = testVM();
    vm.spec.instancetype = { name: "u1.small" };
    vm.spec.template.spec!.domain.cpu = { sockets: 4 };
    const answer = await put(JSON.stringify(vm));
    expect(answer.body).toMatchObject(
      badRequest("VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type"),
    );
  });

  it("refuses a body that says it is not JSON, as go-restful's Consumes does", async () => {
    const answer = await stack.call("PUT", expandVMSpecPath(version), JSON.stringify(testVM()), {
      "Content-Type": "text/plain",
    });
    expect(answer).toEqual({
      code: 415,
      body: "415: Unsupported Media Type",
      type: "text/plain; charset=utf-8",
    });
  });

  it("asks the SubjectAccessReview for update on expand-vm-spec, and refuses when it says no", async () => {
    stack.allow = false;
    const answer = await put(JSON.stringify(testVM()));
    expect(answer.code).toBe(403);
    expect(status(answer.body).message).toBe(
      `expand-vm-spec.subresources.kubevirt.io is forbidden: User "alice" cannot update resource "expand-vm-spec" in API group "subresources.kubevirt.io" in the namespace "${NAMESPACE}": no RBAC policy matched`,
    );
    expect(stack.reviews.map((review) => review.spec.resourceAttributes)).toEqual([
      {
        namespace: NAMESPACE,
        verb: "update",
        group: "subresources.kubevirt.io",
        version,
        resource: "expand-vm-spec",
      },
    ]);
  });
});

describe("routes and discovery", () => {
  it("serves no other version", async () => {
    expect((await call("GET", expandSpecPath("v2"))).code).toBe(404);
    expect((await call("PUT", expandVMSpecPath("v2"), "{}")).code).toBe(404);
  });

  it.each(VERSIONS)("lists both resources in %s's discovery", async (version) => {
    const answer = await call("GET", `/apis/subresources.kubevirt.io/${version}`);
    const names = (answer.body as { resources: { name: string }[] }).resources.map(
      (resource) => resource.name,
    );
    // Upstream's order: expand-vm-spec first, virtualmachines/expand-spec after the VM lifecycle.
    expect(names.filter((name) => name.includes("expand"))).toEqual([
      "expand-vm-spec",
      "virtualmachines/expand-spec",
    ]);
    expect(names.indexOf("virtualmachines/expand-spec")).toBeGreaterThan(
      names.indexOf("virtualmachines/restart"),
    );
  });
});

describe("ExpandSpecApp's own checks, which HTTP cannot reach", () => {
  it("refuses a request without any body, as upstream's nil Body", async () => {
    expect(await app().expandSpec(NAMESPACE, undefined)).toMatchObject({
      code: 400,
      body: { message: "empty request body" },
    });
  });

  it("refuses an empty namespace", async () => {
    expect(await app().expandSpec("", Buffer.from(JSON.stringify(testVM())))).toMatchObject({
      code: 400,
      body: { message: "The request namespace must not be empty" },
    });
  });
});
