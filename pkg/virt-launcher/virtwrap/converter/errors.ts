// What the converter throws. Callers tell a VMI that can never run here (UnsupportedError, a
// ConversionError from a spec upstream would also refuse) from their own bugs (anything else).

/** A VMI (or its context) that cannot be turned into a domain; the message is upstream's where it has one. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConversionError";
  }
}

export interface UnsupportedCause {
  /** The VMI field path, e.g. `spec.domain.devices.gpus`. */
  field: string;
  message: string;
}

/** Parts of the VMI that kubevirt-ts does not implement yet, every one listed, worded as the webhook words them. */
export class UnsupportedError extends ConversionError {
  readonly causes: readonly UnsupportedCause[];

  constructor(causes: readonly UnsupportedCause[]) {
    super(causes.map((cause) => `${cause.field}: ${cause.message}`).join("; "));
    this.name = "UnsupportedError";
    this.causes = causes;
  }
}

/** Counts and orders the VMI gives as plain numbers; the API types say integer, this makes sure. */
export function positiveInteger(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConversionError(`${field}: ${value} is not a positive integer`);
  }
  return value;
}
