// The AdmissionReview v1 envelope around KubeVirt's mutators and admitters (upstream pkg/util/webhooks
// and pkg/virt-api/webhooks): parse the review, check the resource the webhook was registered for,
// and answer with the request's uid, the decision, the JSONPatch base64-encoded and the Status.
import { z } from "zod";
import type { JsonPatchOperation } from "./mutating-webhook/mutators/admission.js";

const groupVersionResource = z.object({ group: z.string(), version: z.string(), resource: z.string() });

export const admissionReviewSchema = z.object({
  apiVersion: z.literal("admission.k8s.io/v1"),
  kind: z.literal("AdmissionReview"),
  request: z.object({
    uid: z.string().min(1),
    resource: groupVersionResource,
    subResource: z.string().optional(),
    namespace: z.string().optional(),
    name: z.string().optional(),
    operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
    userInfo: z
      .object({
        username: z.string().optional(),
        groups: z.array(z.string()).optional(),
        extra: z.record(z.string(), z.array(z.string())).optional(),
      })
      .optional(),
    object: z.unknown().optional(),
    oldObject: z.unknown().optional(),
    dryRun: z.boolean().optional(),
  }),
});

export type AdmissionRequest = z.infer<typeof admissionReviewSchema>["request"];

/** A mutator's or admitter's answer, before the envelope. */
export interface AdmissionDecision {
  allowed: boolean;
  patch?: JsonPatchOperation[];
  warnings?: string[];
  result?: { message: string; code: number; reason?: string; details?: { causes: unknown[] } };
}

export interface AdmissionReviewResponse {
  apiVersion: "admission.k8s.io/v1";
  kind: "AdmissionReview";
  response: {
    uid: string;
    allowed: boolean;
    patch?: string;
    patchType?: "JSONPatch";
    warnings?: string[];
    status?: { message: string; code: number; reason?: string; details?: { causes: unknown[] } };
  };
}

export type ParsedReview = { ok: true; request: AdmissionRequest } | { ok: false; message: string };

export function parseAdmissionReview(body: unknown): ParsedReview {
  const parsed = admissionReviewSchema.safeParse(body);
  if (parsed.success) return { ok: true, request: parsed.data.request };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return { ok: false, message: `invalid AdmissionReview: ${where}${issue?.message ?? "unreadable"}` };
}

/** Upstream's ValidateRequestResource message when a review reaches the wrong webhook. */
export function checkResource(
  request: AdmissionRequest,
  expected: { group: string; resources: readonly string[] },
) {
  const { group, resource } = request.resource;
  if (group === expected.group && expected.resources.includes(resource)) return undefined;
  return `expect resource to be '${expected.resources.join("' or '")}'`;
}

export function toReviewResponse(uid: string, decision: AdmissionDecision): AdmissionReviewResponse {
  const response: AdmissionReviewResponse["response"] = { uid, allowed: decision.allowed };
  if (decision.patch && decision.patch.length > 0) {
    response.patch = Buffer.from(JSON.stringify(decision.patch)).toString("base64");
    response.patchType = "JSONPatch";
  }
  if (decision.warnings && decision.warnings.length > 0) response.warnings = decision.warnings;
  if (decision.result) response.status = decision.result;
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response };
}

export function denied(message: string, code = 400): AdmissionDecision {
  return { allowed: false, result: { message, code } };
}
