// The parts of an admission response a mutator decides, shaped like admission/v1 AdmissionResponse
// (the webhook server adds the uid and base64-encodes the patch), and upstream's ways of building them
// (pkg/util/webhooks: ToAdmissionResponseError, ToAdmissionResponse, ValidateSchema).
import type { z } from "zod";
import type { StatusCause } from "../../../../api/generated/k8s.js";
import { toStatusCauses } from "../../../../api/field.js";
import { parse } from "../../../../api/parse.js";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export interface MutationRequest {
  operation: AdmissionOperation;
  /** The object as sent (request.object). */
  object: unknown;
  /** The stored object on UPDATE (request.oldObject). */
  oldObject?: unknown;
  /** request.userInfo.username */
  username?: string;
}

import type { JsonPatchOp as JsonPatchOperation } from "../../../../apimachinery/patch/patch.js";
/** One JSON patch type for every component (pkg/apimachinery/patch). */
export type { JsonPatchOperation };

export interface ResponseStatus {
  message: string;
  code: number;
  reason?: string;
  details?: { causes: StatusCause[] };
}

export interface MutationResponse {
  allowed: boolean;
  patch?: JsonPatchOperation[];
  patchType?: "JSONPatch";
  warnings?: string[];
  result?: ResponseStatus;
}

/** At most this many causes are reported, the rest are counted. */
const MAX_REPORTED_CAUSES = 10;

export function allowed(): MutationResponse {
  return { allowed: true };
}

export function allowedWithPatch(patch: JsonPatchOperation[], warnings?: string[]): MutationResponse {
  const response: MutationResponse = { allowed: true, patch, patchType: "JSONPatch" };
  if (warnings && warnings.length > 0) response.warnings = warnings;
  return response;
}

/** A generic failure: 400 with the error text. */
export function errorResponse(message: string, code = 400): MutationResponse {
  return { allowed: false, result: { message, code } };
}

/** A refusal with causes: 422 Invalid, the first ten messages joined. */
export function invalidResponse(causes: StatusCause[]): MutationResponse {
  const reported = causes.slice(0, MAX_REPORTED_CAUSES);
  let message = reported.map((cause) => cause.message).join(", ");
  const more = causes.length - reported.length;
  if (more > 0) message = `${message}, and ${more} more validation errors`;
  return { allowed: false, result: { message, code: 422, reason: "Invalid", details: { causes: reported } } };
}

/** Checks an object against its schema as upstream's ValidateSchema does before mutating. */
export function validateSchema<T>(
  schema: z.ZodType<T>,
  object: unknown,
): { ok: true; value: T } | { ok: false; response: MutationResponse } {
  const parsed = parse(schema, object);
  if (parsed.ok) return parsed;
  return { ok: false, response: invalidResponse(toStatusCauses(parsed.errors)) };
}

/** Replace operations for whole top-level members, as upstream's mutators send. */
export function replaceMembers(members: Record<string, unknown>): JsonPatchOperation[] {
  return Object.entries(members).map(([member, value]) => ({ op: "replace", path: `/${member}`, value }));
}
