// The StatusCause vocabulary every admitter speaks: metav1.StatusCause objects (`reason`, `message`,
// `field`, as they travel in an AdmissionReview) built with the field paths of pkg/api/field.ts.
// Upstream writes each message by hand rather than through field.ErrorList, so the admitters do too.
import { FieldErrorType, Path } from "./field.js";
import type { FieldError } from "./field.js";
import type { StatusCause } from "./generated/k8s.js";

export type { StatusCause };
export { FieldErrorType as CauseType, Path };

/** One cause; `field` is left out where upstream leaves it out. */
export function cause(reason: FieldErrorType, message: string, field?: Path | string): StatusCause {
  return field === undefined ? { reason, message } : { reason, message, field: field.toString() };
}

export const invalidCause = (message: string, field?: Path | string): StatusCause =>
  cause(FieldErrorType.Invalid, message, field);

export const requiredCause = (message: string, field?: Path | string): StatusCause =>
  cause(FieldErrorType.Required, message, field);

export const notSupportedCause = (message: string, field?: Path | string): StatusCause =>
  cause(FieldErrorType.NotSupported, message, field);

export const duplicateCause = (message: string, field?: Path | string): StatusCause =>
  cause(FieldErrorType.Duplicate, message, field);

/** Schema errors from pkg/api/parse.ts as causes. */
export function fieldErrorCauses(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((error) => error.toStatusCause());
}

/** The `spec` path every spec validator starts from (Go: `k8sfield.NewPath("spec")`). */
export const specPath = (): Path => Path.of("spec");
