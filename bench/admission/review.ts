import { decodeJsonPatch, applyJsonPatch } from "../../pkg/apimachinery/patch/json-patch.js";
import type { VirtualMachine } from "../../pkg/api/generated/v1.js";
import { testGuestVM } from "../../test/e2e/test-guest-vm.js";
import type { Webhook } from "./options.js";

// The AdmissionReviews (admission.k8s.io/v1) the benchmark sends: a small VirtualMachine's CREATE as the
// apiserver sends it to each webhook. The mutating webhook is called before the object is stored, so it
// sees no uid; the validating one after the mutation and after the apiserver gave the object its uid,
// creation time and generation, so its object is the VM as the mutating webhook left it.

export const VM_GROUP = "kubevirt.io";
export const VM_RESOURCE = "virtualmachines";
export const VM_NAME = "bench-admission";
export const VM_NAMESPACE = "default";

/** The e2e tests' test guest VM (128Mi, containerDisk), named for the benchmark. */
export function smallVM(): VirtualMachine {
  const vm = testGuestVM(VM_NAME);
  vm.metadata = { ...vm.metadata, namespace: VM_NAMESPACE };
  return vm;
}

/** What the apiserver adds before validation (rest.BeforeCreate). */
export function asCreated(vm: object, uid: string, created: Date): object {
  const { metadata, ...rest } = vm as { metadata?: object };
  const creationTimestamp = created.toISOString().replace(/\.\d+Z$/, "Z");
  return { ...rest, metadata: { ...metadata, uid, creationTimestamp, generation: 1 } };
}

/** The review's JSON: one per request, each with its own uid. */
export function reviewBody(uid: string, object: object): string {
  const kind = { group: VM_GROUP, version: "v1", kind: "VirtualMachine" };
  const resource = { group: VM_GROUP, version: "v1", resource: VM_RESOURCE };
  return JSON.stringify({
    kind: "AdmissionReview",
    apiVersion: "admission.k8s.io/v1",
    request: {
      uid,
      kind,
      resource,
      requestKind: kind,
      requestResource: resource,
      name: VM_NAME,
      namespace: VM_NAMESPACE,
      operation: "CREATE",
      userInfo: { username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] },
      object,
      oldObject: null,
      dryRun: false,
      options: {
        kind: "CreateOptions",
        apiVersion: "meta.k8s.io/v1",
        fieldManager: "kubectl-client-side-apply",
      },
    },
  });
}

interface ReviewAnswer {
  apiVersion?: string;
  kind?: string;
  response?: {
    uid?: string;
    allowed?: boolean;
    patch?: string;
    patchType?: string;
    status?: { message?: string; code?: number };
  };
}

export type Verdict = { ok: true } | { ok: false; reason: string };

/**
 * Whether an answer is what the apiserver would accept as admitting the VM: HTTP 200, an AdmissionReview
 * for this uid, allowed, and for the mutating webhook a JSONPatch that decodes. Reasons are short and
 * alike for alike failures, so that they can be counted.
 */
export function checkAnswer(webhook: Webhook, uid: string, status: number, body: string): Verdict {
  if (status !== 200) return { ok: false, reason: `HTTP ${status}` };
  let answer: ReviewAnswer;
  try {
    answer = JSON.parse(body) as ReviewAnswer;
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  const response = answer.response;
  if (answer.apiVersion !== "admission.k8s.io/v1" || answer.kind !== "AdmissionReview" || !response)
    return { ok: false, reason: "not an admission.k8s.io/v1 AdmissionReview" };
  if (response.uid !== uid) return { ok: false, reason: "another request's uid" };
  if (response.allowed !== true) {
    const why = response.status?.message ?? "no message";
    return { ok: false, reason: `denied (${response.status?.code ?? "no code"}): ${why}` };
  }
  if (webhook === "mutate" && response.patch !== undefined) {
    if (response.patchType !== "JSONPatch") return { ok: false, reason: `patchType ${response.patchType}` };
    try {
      decodeJsonPatch(Buffer.from(response.patch, "base64").toString("utf8"));
    } catch {
      return { ok: false, reason: "a patch that is not a JSON patch" };
    }
  }
  return { ok: true };
}

/** The VM with the mutating webhook's patch applied (what the validating webhook is sent). */
export function mutated(vm: object, answerBody: string): object {
  const patch = (JSON.parse(answerBody) as ReviewAnswer).response?.patch;
  if (patch === undefined) return vm;
  return applyJsonPatch(structuredClone(vm), decodeJsonPatch(Buffer.from(patch, "base64").toString("utf8")));
}
