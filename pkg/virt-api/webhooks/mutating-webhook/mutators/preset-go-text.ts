// Upstream's preset conflict messages print the Go values with %v (mutators/preset.go): a pointer to a
// struct as `&{...}`, struct fields in declaration order separated by spaces, nil as `<nil>`, and a
// non-nil pointer nested inside as its address. Addresses change from run to run upstream, so no
// caller can rely on them; they are written as one fixed Go-looking address here. A resource.Quantity
// is a value whose String method needs a pointer, so %v shows its fields: `{{value scale} {<nil>} s
// Format}`, with s the parsed text only where ParseQuantity keeps it. The field lists follow
// kubevirt.io/api core/v1 v1.8.4.

/** What a nested non-nil pointer prints as (its address upstream). */
export const GoAddress = "0xc000010000";

type GoType =
  | { kind: "string" | "uint" | "bool" }
  | { kind: "ptr"; elem: GoType }
  | { kind: "slice"; elem: GoType }
  | { kind: "struct"; fields: readonly (readonly [json: string | undefined, type: GoType])[] };

const str: GoType = { kind: "string" };
const uint: GoType = { kind: "uint" };
const bool: GoType = { kind: "bool" };
// The pointee's type never matters when only nil-ness and address are printed.
const opaquePtr: GoType = { kind: "ptr", elem: str };
const struct = (...fields: (readonly [string | undefined, GoType])[]): GoType => ({ kind: "struct", fields });
const ptr = (elem: GoType): GoType => ({ kind: "ptr", elem });

const cpuFeature = struct(["name", str], ["policy", str]);
/** v1.CPU */
export const CPUType = ptr(
  struct(
    ["cores", uint],
    ["sockets", uint],
    ["maxSockets", uint],
    ["threads", uint],
    ["model", str],
    ["features", { kind: "slice", elem: cpuFeature }],
    ["dedicatedCpuPlacement", bool],
    ["numa", opaquePtr],
    ["isolateEmulatorThread", bool],
    ["realtime", opaquePtr],
  ),
);
/** v1.Firmware */
export const FirmwareType = ptr(
  struct(
    ["uuid", str],
    ["bootloader", opaquePtr],
    ["serial", str],
    ["kernelBoot", opaquePtr],
    ["acpi", opaquePtr],
  ),
);
/** v1.ClockOffset (inline in v1.Clock), printed as a value. */
export const ClockOffsetType = struct(["utc", opaquePtr], ["timezone", opaquePtr]);
/** v1.Timer */
export const TimerType = ptr(
  struct(
    ["hpet", opaquePtr],
    ["kvm", opaquePtr],
    ["pit", opaquePtr],
    ["rtc", opaquePtr],
    ["hyperv", opaquePtr],
  ),
);
/** v1.Features */
export const FeaturesType = ptr(
  struct(
    ["acpi", struct(["enabled", opaquePtr])],
    ["apic", opaquePtr],
    ["hypervPassthrough", opaquePtr],
    ["hyperv", opaquePtr],
    ["smm", opaquePtr],
    ["kvm", opaquePtr],
    ["pvspinlock", opaquePtr],
  ),
);
/** v1.Watchdog, its WatchdogDevice inline (an embedded struct: same JSON object, own braces). */
export const WatchdogType = ptr(
  struct(["name", str], [undefined, struct(["i6300esb", opaquePtr], ["diag288", opaquePtr])]),
);
/** *v1.IOThreadsPolicy: a pointer to a string type, which %v prints as an address. */
export const IOThreadsPolicyType = opaquePtr;

const isPresent = (value: unknown) => value !== undefined && value !== null;

function formatValue(type: GoType, value: unknown, depth: number): string {
  switch (type.kind) {
    case "string":
      return typeof value === "string" ? value : "";
    case "uint":
      return typeof value === "number" ? String(value) : "0";
    case "bool":
      return value === true ? "true" : "false";
    case "slice": {
      const items = Array.isArray(value) ? value : [];
      return `[${items.map((item) => formatValue(type.elem, item, depth + 1)).join(" ")}]`;
    }
    case "ptr":
      if (!isPresent(value)) return "<nil>";
      // Only at the top does fmt follow a pointer to a struct or slice.
      if (depth === 0 && (type.elem.kind === "struct" || type.elem.kind === "slice")) {
        return `&${formatValue(type.elem, value, depth + 1)}`;
      }
      return GoAddress;
    case "struct": {
      const object = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
      const fields = type.fields.map(([json, fieldType]) =>
        formatValue(fieldType, json === undefined ? object : object[json], depth + 1),
      );
      return `{${fields.join(" ")}}`;
    }
  }
}

/** Go's %v of a value of `type` held as its JSON form. */
export const goText = (type: GoType, value: unknown): string => formatValue(type, value, 0);

/** The fields of a Go resource.Quantity parsed from `text` (ParseQuantity), for %v and ==. */
export interface GoQuantityFields {
  /** int64Amount, or undefined when ParseQuantity fell back to an inf.Dec (a pointer). */
  amount?: { value: bigint; scale: number };
  cached: string;
  format: "DecimalSI" | "BinarySI" | "DecimalExponent";
}

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const INT64_MAX = (1n << 63n) - 1n;

export function goQuantityFields(text: string): GoQuantityFields {
  if (text === "0") return { amount: { value: 0n, scale: 0 }, cached: "0", format: "DecimalSI" };
  const match = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(text);
  const positive = match?.[1] !== "-";
  const num = match?.[2] || "0";
  const denom = match?.[3] ?? "";
  const suffix = match?.[4] ?? "";
  let format: GoQuantityFields["format"];
  let exponent: number;
  if (suffix in DECIMAL_SUFFIXES) [format, exponent] = ["DecimalSI", DECIMAL_SUFFIXES[suffix] ?? 0];
  else if (suffix in BINARY_SUFFIXES) [format, exponent] = ["BinarySI", BINARY_SUFFIXES[suffix] ?? 0];
  else [format, exponent] = ["DecimalExponent", Number(suffix.slice(1))];
  let scale = 0;
  let mantissa = 1n;
  let precision: number;
  if (format === "BinarySI") {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const result = BigInt(shifted) * mantissa;
      if (result <= INT64_MAX) {
        const value = positive ? result : -result;
        const keepsText =
          format === "BinarySI"
            ? exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
        return { amount: { value, scale }, cached: keepsText ? text : "", format };
      }
    }
  }
  // The inf.Dec path, where a positive value below one BinarySI unit turns DecimalSI.
  const magnitude = Number(`${num}.${denom || "0"}`) * 2 ** (format === "BinarySI" ? exponent : 0);
  if (format === "BinarySI" && magnitude > 0 && magnitude < 1) format = "DecimalSI";
  return { cached: "", format };
}

export function goQuantityText(text: string): string {
  const fields = goQuantityFields(text);
  const amount = fields.amount ?? { value: 0n, scale: 0 };
  const dec = fields.amount ? "<nil>" : GoAddress;
  return `{{${amount.value} ${amount.scale}} {${dec}} ${fields.cached} ${fields.format}}`;
}

/** Go's == on two parsed quantities: equal fields; an inf.Dec is a distinct pointer each time. */
export function goQuantitiesIdentical(a: string, b: string): boolean {
  const left = goQuantityFields(a);
  const right = goQuantityFields(b);
  return (
    left.amount !== undefined &&
    right.amount !== undefined &&
    left.amount.value === right.amount.value &&
    left.amount.scale === right.amount.scale &&
    left.cached === right.cached &&
    left.format === right.format
  );
}
