import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClusterConfig } from "../../virt-config/cluster-config.js";
import { handleAdmission } from "./handler.js";
import { WEBHOOK_ROUTES, kubeVirtServiceAccounts, type WebhookContext } from "./routes.js";

const context: WebhookContext = {
  clusterConfig: () => ClusterConfig.defaults(),
  kubeVirtServiceAccounts: kubeVirtServiceAccounts("kubevirt"),
};

const routeFor = (path: string) => {
  const route = WEBHOOK_ROUTES.find((candidate) => candidate.path === path);
  if (!route) throw new Error(`no route ${path}`);
  return route;
};

const review = (resource: string, operation: string, object: unknown, oldObject?: unknown) => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "u-1",
    resource: { group: "kubevirt.io", version: "v1", resource },
    operation,
    object,
    oldObject,
  },
});

const vmi = {
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachineInstance",
  metadata: { name: "vmi1", namespace: "default" },
  spec: {
    domain: { devices: { disks: [{ name: "disk0", disk: {} }] }, memory: { guest: "128Mi" } },
    volumes: [{ name: "disk0", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
  },
};

describe("handleAdmission", () => {
  it("mutates a new VMI and the result is admitted by the create validator", async () => {
    const mutated = await handleAdmission(
      review("virtualmachineinstances", "CREATE", vmi),
      routeFor("/virtualmachineinstances-mutate"),
      context,
    );
    expect(mutated.code).toBe(200);
    if (mutated.code !== 200) return;
    const { response } = mutated.body;
    expect(response).toMatchObject({ uid: "u-1", allowed: true, patchType: "JSONPatch" });
    const patch = JSON.parse(Buffer.from(response.patch ?? "", "base64").toString("utf8")) as {
      path: string;
      value: unknown;
    }[];
    const spec = patch.find((op) => op.path === "/spec")?.value;
    const validated = await handleAdmission(
      review("virtualmachineinstances", "CREATE", { ...vmi, spec }),
      routeFor("/virtualmachineinstances-validate-create"),
      context,
    );
    expect(validated.code === 200 && validated.body.response).toEqual({ uid: "u-1", allowed: true });
  });

  it("refuses a disk without a volume with upstream's cause", async () => {
    const broken = structuredClone(vmi);
    broken.spec.volumes = [];
    const answer = await handleAdmission(
      review("virtualmachineinstances", "CREATE", broken),
      routeFor("/virtualmachineinstances-validate-create"),
      context,
    );
    expect(answer.code).toBe(200);
    if (answer.code !== 200) return;
    expect(answer.body.response.allowed).toBe(false);
    expect(answer.body.response.status?.code).toBe(422);
    expect(answer.body.response.status?.details?.causes).toContainEqual(
      expect.objectContaining({ field: "spec.domain.devices.disks[0].name" }),
    );
  });

  it("answers a body that is no AdmissionReview with a 400 Status naming the problem", async () => {
    const answer = await handleAdmission(
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
      routeFor("/virtualmachines-validate"),
      context,
    );
    expect(answer).toMatchObject({ code: 400, body: { kind: "Status", reason: "BadRequest" } });
    expect(answer.code === 400 && answer.body.message).toMatch(/^invalid AdmissionReview: request/);
  });

  // Webhooks fail closed and never crash: any JSON value, or any object in a well-formed review,
  // yields a 400 Status or an AdmissionReview answer for the same uid.
  it("never throws, whatever arrives (fuzz)", async () => {
    const arbitraryReview = fc.record({
      resource: fc.constantFrom(
        "virtualmachines",
        "virtualmachineinstances",
        "virtualmachineinstancereplicasets",
      ),
      operation: fc.constantFrom("CREATE", "UPDATE", "DELETE"),
      object: fc.oneof(
        fc.jsonValue(),
        fc.constant(vmi),
        fc.record({ spec: fc.jsonValue(), metadata: fc.jsonValue() }),
      ),
      oldObject: fc.oneof(fc.jsonValue(), fc.constant(vmi)),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WEBHOOK_ROUTES),
        fc.oneof(fc.jsonValue(), arbitraryReview),
        async (route, input) => {
          const body =
            typeof input === "object" && input !== null && "resource" in input && "operation" in input
              ? review(String(input.resource), String(input.operation), input.object, input.oldObject)
              : input;
          const answer = await handleAdmission(body, route, context);
          if (answer.code === 400) expect(answer.body.kind).toBe("Status");
          else expect(answer.body.response.uid).toBe("u-1");
        },
      ),
      { numRuns: 300 },
    );
  });
});
