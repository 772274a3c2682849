// Whatever a client PUTs to expand-vm-spec, virt-api answers: the VM (200) or a BadRequest Status that
// says why, never a crash or a 500. Random bytes, cut JSON, any JSON value, and upstream's example VMs with
// a random part replaced; first against the handler, then a few over HTTPS.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../api/generated/v1.js";
import { leaves, loadUpstreamExamples } from "../../defaults/testing.js";
import { Expander } from "../../instancetype/expand/expand.js";
import { clientFinders } from "../../instancetype/find/client.js";
import { KubeClient } from "../../controller/client.js";
import { FakeApiServer } from "../../controller/testing/fake-apiserver.js";
import { ClusterConfig } from "../../virt-config/cluster-config.js";
import { ExpandSpecApp, type ExpandReply } from "./expand.js";
import { startHandlerStack, type HandlerStack } from "./testing/handler-stack.js";

const NAMESPACE = "default";
// The real finders over an apiserver that holds no instance types or preferences.
const finders = clientFinders(new KubeClient(new FakeApiServer()));
const app = new ExpandSpecApp(
  { getVM: async () => undefined },
  new Expander(() => ClusterConfig.defaults(), finders.instancetype, finders.preference),
);
const vms = loadUpstreamExamples()
  .filter((example) => example.object.kind === "VirtualMachine")
  .map((example) => example.object);

/** An upstream example VM with the value at one of its paths (or that value's parent) replaced. */
const mutatedVM = fc
  .tuple(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 3 }))
  .map(([vmIndex, leafIndex, replacement]) => {
    const object = structuredClone(vms[vmIndex % vms.length] ?? {});
    const paths = leaves(object).map(([path]) => path);
    const path = paths[leafIndex % Math.max(paths.length, 1)] ?? [];
    const target = leafIndex % 2 === 0 ? path : path.slice(0, -1);
    if (target.length === 0) return replacement;
    let parent: unknown = object;
    for (const step of target.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown>)[step];
    (parent as Record<PropertyKey, unknown>)[target[target.length - 1] ?? ""] = replacement;
    return object;
  });

const bodies: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.string().map((text) => Buffer.from(text)),
  fc.json().map((json) => Buffer.from(json.slice(0, Math.floor(json.length / 2)))),
  fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value))),
  mutatedVM.map((value) => Buffer.from(JSON.stringify(value))),
);

function expectWellFormed(answer: ExpandReply): void {
  if (answer.code === 200) {
    expect((answer.body as VirtualMachine).metadata?.namespace).toBe(NAMESPACE);
    return;
  }
  expect(answer.code).toBe(400);
  expect(answer.body).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
  expect((answer.body as { message: string }).message.length).toBeGreaterThan(0);
}

describe("the expand-vm-spec handler on any body", () => {
  it("expands upstream's examples, or refuses those whose instance type or preference is missing", async () => {
    const references = (vm: Record<string, unknown>) =>
      vm.spec as { instancetype?: unknown; preference?: unknown };
    expect(vms.filter((vm) => references(vm).instancetype === undefined).length).toBeGreaterThan(0);
    expect(vms.filter((vm) => references(vm).instancetype !== undefined).length).toBeGreaterThan(0);
    for (const vm of vms) {
      const answer = await app.expandSpec(NAMESPACE, Buffer.from(JSON.stringify(vm)));
      const { instancetype, preference } = references(vm);
      const refused = instancetype !== undefined || preference !== undefined;
      expect(answer, JSON.stringify(vm.metadata)).toMatchObject(
        refused
          ? {
              code: 400,
              body: { message: expect.stringMatching(/^virtualmachine[\w.]+ ".+" not found$/) },
            }
          : { code: 200, body: { ...vm, metadata: { ...(vm.metadata as object), namespace: NAMESPACE } } },
      );
    }
  });

  it("always answers the VM or a BadRequest", async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => expectWellFormed(await app.expandSpec(NAMESPACE, body))),
      { numRuns: 500 },
    );
  });

  it("refuses nesting deeper than Go takes, without recursing into it", async () => {
    const answer = await app.expandSpec(NAMESPACE, Buffer.from(`{"spec":${"[".repeat(200_000)}`));
    expect(answer).toMatchObject({
      code: 400,
      body: {
        message: "Can not unmarshal Request body to struct, error: invalid character '[' exceeded max depth",
      },
    });
  });
});

describe("expand-vm-spec over HTTPS on any body", () => {
  let stack: HandlerStack;
  beforeAll(async () => {
    stack = await startHandlerStack({ api: () => ({ expand: app }) });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("always answers JSON: the VM or a BadRequest", async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const answer = await stack.call(
          "PUT",
          `/apis/subresources.kubevirt.io/v1/namespaces/${NAMESPACE}/expand-vm-spec`,
          Buffer.from(body),
        );
        expect(answer.type).toMatch(/^application\/json/);
        expectWellFormed({ code: answer.code, body: JSON.parse(answer.body) as ExpandReply["body"] });
      }),
      { numRuns: 60 },
    );
  });
});
