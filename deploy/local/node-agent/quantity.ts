// Kubernetes resource quantities ("500m", "2Gi", "1e3") as numbers of base units, for the downward
// API's resourceFieldRef arithmetic and Node capacity. Parsing is the suite's one Quantity parser.
import { Quantity } from "../../../pkg/defaults/quantity.js";

const NANOS_PER_UNIT = 1e9;

export function parseQuantity(value: string | number): number {
  if (typeof value === "number") return value;
  return Number(Quantity.parse(value).nanos) / NANOS_PER_UNIT;
}
