// The few resource.Quantity operations the renderer needs, on top of pkg/defaults' exact parser: sums
// that keep Go's format rules, so the Pod carries the same text upstream's virt-controller writes.
import type { Quantity as QuantityText } from "../api/generated/k8s.js";
import { Quantity, type QuantityFormat } from "../defaults/quantity.js";

export const KiB = 1024n;
export const MiB = 1024n * KiB;
export const GiB = 1024n * MiB;

/** A quantity field of the VMI spec, or undefined when absent or not a quantity. */
export function quantityOf(value: QuantityText | undefined | null): Quantity | undefined {
  return value === undefined || value === null ? undefined : Quantity.tryParse(value);
}

/** Whole units (bytes, cores), fractions rounded up as Go's Value() does; 0 when absent. */
export function valueOf(value: QuantityText | undefined | null): bigint {
  return quantityOf(value)?.value() ?? 0n;
}

export function isZero(value: QuantityText | undefined | null): boolean {
  return (quantityOf(value)?.isZero() ?? true) === true;
}

/** Go's Cmp, with absent values read as zero. */
export function compareQuantities(a: QuantityText | undefined, b: QuantityText | undefined): -1 | 0 | 1 {
  const zero = Quantity.fromInteger(0n, "DecimalSI");
  return (quantityOf(a) ?? zero).compare(quantityOf(b) ?? zero);
}

/**
 * `base + addend` in whole units, written in base's format; like Go's Add, a zero or absent base takes
 * the addend's format.
 */
export function addQuantity(base: QuantityText | undefined, addend: Quantity): string {
  const left = quantityOf(base);
  const format = left && !left.isZero() ? left.format : addend.format;
  return Quantity.fromInteger((left?.value() ?? 0n) + addend.value(), format).toString();
}

/** Whole units written in the given format, like Go's resource.NewQuantity(value, format). */
export function wholeUnits(value: bigint, format: QuantityFormat): string {
  return Quantity.fromInteger(value, format).toString();
}

/** Bytes as a BinarySI quantity (`…Mi` when exact), the format upstream's overhead terms are parsed in. */
export function bytesQuantity(bytes: bigint): Quantity {
  return Quantity.fromInteger(bytes, "BinarySI");
}

/** A constant written as upstream writes it (resource.MustParse). */
export function parseQuantity(text: string): Quantity {
  return Quantity.parse(text);
}
