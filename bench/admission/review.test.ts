import { describe, expect, it } from "vitest";
import { asCreated, checkAnswer, mutated, reviewBody, smallVM } from "./review.js";

const answer = (response: object, envelope: object = {}): string =>
  JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response, ...envelope });
const patch = (ops: object[]): string => Buffer.from(JSON.stringify(ops)).toString("base64");

describe("admission reviews", () => {
  it("sends a VirtualMachine CREATE as the apiserver does", () => {
    const review = JSON.parse(reviewBody("uid-1", smallVM())) as { request: Record<string, unknown> };
    expect(review).toMatchObject({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" });
    expect(review.request).toMatchObject({
      uid: "uid-1",
      kind: { group: "kubevirt.io", version: "v1", kind: "VirtualMachine" },
      resource: { group: "kubevirt.io", version: "v1", resource: "virtualmachines" },
      name: "bench-admission",
      namespace: "default",
      operation: "CREATE",
      oldObject: null,
      dryRun: false,
      object: { kind: "VirtualMachine", metadata: { name: "bench-admission", namespace: "default" } },
    });
  });

  it("gives the validated object what the apiserver adds on create", () => {
    const created = asCreated(smallVM(), "vm-uid", new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)));
    expect(created).toMatchObject({
      metadata: {
        name: "bench-admission",
        uid: "vm-uid",
        creationTimestamp: "2026-01-02T03:04:05Z",
        generation: 1,
      },
      spec: { runStrategy: "Always" },
    });
  });

  it("accepts an allowed answer for this uid, and a mutation's JSON patch", () => {
    expect(checkAnswer("validate", "u", 200, answer({ uid: "u", allowed: true }))).toEqual({ ok: true });
    const body = answer({
      uid: "u",
      allowed: true,
      patchType: "JSONPatch",
      patch: patch([{ op: "add", path: "/a", value: 1 }]),
    });
    expect(checkAnswer("mutate", "u", 200, body)).toEqual({ ok: true });
  });

  it.each([
    ["an HTTP error", 500, answer({ uid: "u", allowed: true }), "HTTP 500"],
    ["a body that is not JSON", 200, "<html>", "not JSON"],
    [
      "another envelope",
      200,
      answer({ uid: "u", allowed: true }, { apiVersion: "admission.k8s.io/v1beta1" }),
      "not an admission.k8s.io/v1 AdmissionReview",
    ],
    ["another uid", 200, answer({ uid: "v", allowed: true }), "another request's uid"],
    [
      "a denial",
      200,
      answer({ uid: "u", allowed: false, status: { code: 422, message: "spec.x: bad" } }),
      "denied (422): spec.x: bad",
    ],
    [
      "a patch that is not one",
      200,
      answer({ uid: "u", allowed: true, patchType: "JSONPatch", patch: btoa("{}") }),
      "a patch that is not a JSON patch",
    ],
  ])("counts %s as failed", (_what, status, body, reason) => {
    expect(checkAnswer("mutate", "u", status, body)).toEqual({ ok: false, reason });
  });

  it("applies the mutating webhook's patch to the VM it validates next", () => {
    const body = answer({
      uid: "u",
      allowed: true,
      patchType: "JSONPatch",
      patch: patch([{ op: "add", path: "/metadata/annotations", value: { a: "b" } }]),
    });
    const vm = smallVM();
    expect(mutated(vm, body)).toMatchObject({
      metadata: { name: "bench-admission", annotations: { a: "b" } },
    });
    expect(vm.metadata?.annotations).toBeUndefined();
    expect(mutated(vm, answer({ uid: "u", allowed: true }))).toEqual(vm);
  });
});
