// The shape of an admission answer the instancetype admitters give (virt-api's Verdict, structurally),
// kept here so that this library does not import the virt-api component.
import { FieldErrorType, type FieldError, type Path } from "../../api/field.js";
import type { StatusCause } from "../../api/generated/k8s.js";

export interface AdmissionInput {
  operation: string;
  object: unknown;
}

export interface Verdict {
  causes: StatusCause[];
  warnings: string[];
}

export const refused = (causes: StatusCause[]): Verdict => ({ causes, warnings: [] });
export const accepted = (warnings: string[] = []): Verdict => ({ causes: [], warnings });

export const invalidCause = (message: string, field: Path): StatusCause => ({
  reason: FieldErrorType.Invalid,
  message,
  field: field.toString(),
});

export const fieldErrorCauses = (errors: readonly FieldError[]): StatusCause[] =>
  errors.map((error) => error.toStatusCause());
