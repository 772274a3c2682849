// Resource quantities as the Go admitters read them: `spec.Domain.Resources.Requests.Memory()` is a zero
// quantity when absent, `Value()` rounds up, `MilliValue()` likewise, and `%s` prints the canonical text.
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { Quantity } from "../../../../defaults/quantity.js";
import { invalidCause, type Path, type StatusCause } from "../../../../api/causes.js";

export type ResourceList = "requests" | "limits";
export type ResourceName = "memory" | "cpu";

const ZERO = Quantity.fromInteger(0n, "DecimalSI");
const NANOS_PER_MILLI = 1_000_000n;

/** A quantity that may be missing; unparsable text reads as zero (it is refused separately). */
export function quantityOf(raw: unknown): Quantity {
  return Quantity.tryParse(raw) ?? ZERO;
}

export function resource(spec: VirtualMachineInstanceSpec, list: ResourceList, name: ResourceName): Quantity {
  return quantityOf(spec.domain.resources?.[list]?.[name]);
}

/** Go's MilliValue(): thousandths, any remainder rounded away from zero. */
export function milliValue(quantity: Quantity): bigint {
  const nanos = quantity.nanos;
  const whole = nanos / NANOS_PER_MILLI;
  return nanos % NANOS_PER_MILLI === 0n ? whole : whole + (nanos > 0n ? 1n : -1n);
}

/** Every present request/limit/guest/maxGuest quantity Go could not have decoded. */
export function validateQuantities(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const check = (raw: unknown, at: Path): void => {
    if (raw === undefined || Quantity.tryParse(raw) !== undefined) return;
    causes.push(invalidCause(`${at.toString()} '${String(raw)}': unable to parse quantity`, at));
  };
  const domain = field.child("domain");
  for (const list of ["requests", "limits"] as const) {
    for (const [name, raw] of Object.entries(spec.domain.resources?.[list] ?? {})) {
      check(raw, domain.child("resources", list, name));
    }
  }
  check(spec.domain.memory?.guest, domain.child("memory", "guest"));
  check(spec.domain.memory?.maxGuest, domain.child("memory", "maxGuest"));
  return causes;
}
