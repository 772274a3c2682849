// admission.k8s.io/v1 AdmissionReview as virt-operator's webhooks receive and answer it.
import { z } from "zod";
import type { StatusCause } from "../../api/generated/k8s.js";

const requestSchema = z.looseObject({
  uid: z.string(),
  kind: z.looseObject({ group: z.string(), version: z.string(), kind: z.string() }).optional(),
  resource: z.looseObject({ group: z.string(), version: z.string(), resource: z.string() }).optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
  object: z.unknown().optional(),
  oldObject: z.unknown().optional(),
});

const reviewSchema = z.looseObject({
  apiVersion: z.literal("admission.k8s.io/v1"),
  kind: z.literal("AdmissionReview"),
  request: requestSchema,
});

export type AdmissionRequest = z.infer<typeof requestSchema>;

export interface AdmissionResponse {
  allowed: boolean;
  result?: { message: string; code: number; reason?: string; details?: { causes: StatusCause[] } };
}

export function parseAdmissionReview(body: unknown): AdmissionRequest {
  const parsed = reviewSchema.safeParse(body);
  if (!parsed.success)
    throw new Error(`not an admission.k8s.io/v1 AdmissionReview: ${z.prettifyError(parsed.error)}`);
  return parsed.data.request;
}

export function reviewResponse(uid: string, response: AdmissionResponse) {
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid, ...response } };
}

export const allow = (): AdmissionResponse => ({ allowed: true });

/** Upstream's ToAdmissionResponseError: a refusal with the error's text and code 400. */
export const deny = (message: string): AdmissionResponse => ({
  allowed: false,
  result: { message, code: 400 },
});

/** A refusal listing field causes, as upstream's ValidationErrorsToAdmissionResponse. */
export function denyWithCauses(causes: StatusCause[]): AdmissionResponse {
  return {
    allowed: false,
    result: {
      message: causes.map((c) => c.message).join(", "),
      code: 422,
      reason: "Invalid",
      details: { causes },
    },
  };
}
