// Kubernetes resource quantities (apimachinery `resource.Quantity`) as far as defaulting needs them:
// parsing with the same grammar and rounding, integer views, comparison and the canonical string the
// Go code writes back (so a guest memory copied from `resources.requests.memory: 1.5Gi` reads `1536Mi`,
// exactly as upstream's webhook returns it). Values are kept exactly as nano-units in a bigint.

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

export class QuantityParseError extends Error {
  override readonly name = "QuantityParseError";
}

/** ErrFormatWrong's text. */
export const FORMAT_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_MESSAGE = "unable to parse quantity's suffix";

const NANO_EXPONENT = -9;
const NANOS_PER_UNIT = 10n ** 9n;
const MAX_INT64 = (1n << 63n) - 1n;
// Go keeps any exponent and any number of digits; exact bigint arithmetic on "1e999999999" would
// not finish, so absurd sizes are refused (callers treat them as unparsable, like other bad text).
const MAX_DECIMAL_EXPONENT = 1000;
const MAX_DIGITS = 1000;

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
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
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SUFFIX_CHARACTERS = "eEinumkKMGTP";

interface SplitQuantity {
  positive: boolean;
  /** Leading zeroes dropped ("0" when there are no other digits). */
  integerDigits: string;
  fractionDigits: string;
  suffix: string;
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function isDigit(character: string | undefined): boolean {
  return character !== undefined && character >= "0" && character <= "9";
}

// Mirrors apimachinery's hand-written scanner, including its leniencies ("-" and "." read as zero).
function splitQuantity(text: string): SplitQuantity {
  let position = 0;
  let positive = true;
  if (text[0] === "-" || text[0] === "+") {
    positive = text[0] === "+";
    position = 1;
  }
  while (text[position] === "0") position++;
  const integerStart = position;
  while (isDigit(text[position])) position++;
  const integerDigits = text.slice(integerStart, position) || "0";
  let fractionDigits = "";
  if (text[position] === ".") {
    position++;
    const fractionStart = position;
    while (isDigit(text[position])) position++;
    fractionDigits = text.slice(fractionStart, position);
  }
  const suffixStart = position;
  while (position < text.length && SUFFIX_CHARACTERS.includes(text[position] ?? "")) position++;
  if (text[position] === "-" || text[position] === "+") position++;
  while (isDigit(text[position])) position++;
  if (position < text.length) throw new QuantityParseError(FORMAT_MESSAGE);
  if (integerDigits.length + fractionDigits.length > MAX_DIGITS) throw new QuantityParseError(FORMAT_MESSAGE);
  return { positive, integerDigits, fractionDigits, suffix: text.slice(suffixStart) };
}

function interpretSuffix(suffix: string): Suffix {
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: "DecimalSI" };
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E") && /^[+-]?\d+$/.test(suffix.slice(1))) {
    const exponent = Number(suffix.slice(1));
    if (Number.isSafeInteger(exponent) && Math.abs(exponent) <= MAX_DECIMAL_EXPONENT) {
      return { base: 10, exponent, format: "DecimalExponent" };
    }
  }
  throw new QuantityParseError(SUFFIX_MESSAGE);
}

/** Divides rounding away from zero, as inf.Dec's RoundUp does. */
function divideAwayFromZero(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  if (quotient * denominator === numerator) return quotient;
  return numerator < 0n ? quotient - 1n : quotient + 1n;
}

function toNanos(split: SplitQuantity, suffix: Suffix): bigint {
  let numerator = BigInt(split.integerDigits + split.fractionDigits);
  let denominator = 10n ** BigInt(split.fractionDigits.length);
  if (suffix.base === 2) {
    numerator *= 1n << BigInt(suffix.exponent);
  } else if (suffix.exponent >= 0) {
    numerator *= 10n ** BigInt(suffix.exponent);
  } else {
    denominator *= 10n ** BigInt(-suffix.exponent);
  }
  const nanos = divideAwayFromZero(numerator * NANOS_PER_UNIT, denominator);
  return split.positive ? nanos : -nanos;
}

// The Go parser keeps the text as written when its int64 fast path sees an already canonical
// number (no trailing "000", no leading zero, exponent a multiple of three, not a multiple of 8 Ki).
function keepsWrittenForm(split: SplitQuantity, suffix: Suffix): boolean {
  const shifted = split.integerDigits + split.fractionDigits;
  const digits = split.integerDigits.length + split.fractionDigits.length;
  if (suffix.format === "BinarySI") {
    if (split.fractionDigits.length > 0) return false;
    const precision = 15 - split.integerDigits.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
    if (precision < 0) return false;
    const value = BigInt(split.integerDigits);
    if (value << BigInt(suffix.exponent) > MAX_INT64) return false;
    return suffix.exponent % 10 === 0 && (value & 7n) !== 0n;
  }
  const scale = suffix.exponent - split.fractionDigits.length;
  if (18 - digits < 0 || scale < NANO_EXPONENT) return false;
  return scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
}

function removeFactors(value: bigint, base: bigint): { remaining: bigint; times: number } {
  const negative = value < 0n;
  let remaining = negative ? -value : value;
  let times = 0;
  while (remaining >= base && remaining % base === 0n) {
    remaining /= base;
    times++;
  }
  return { remaining: negative ? -remaining : remaining, times };
}

function decimalSuffix(exponent: number, format: QuantityFormat): string {
  if (format === "DecimalExponent") return exponent === 0 ? "" : `e${exponent}`;
  // Go finds no suffix past "E" and writes the bare mantissa; kept for fidelity.
  return Object.entries(DECIMAL_SUFFIXES).find(([, value]) => value === exponent)?.[0] ?? "";
}

function binarySuffix(exponent: number): string {
  if (exponent === 0) return "";
  return Object.entries(BINARY_SUFFIXES).find(([, value]) => value === exponent)?.[0] ?? "";
}

export class Quantity {
  private constructor(
    /** The exact value times 10^9. */
    readonly nanos: bigint,
    readonly format: QuantityFormat,
    private readonly writtenForm?: string,
  ) {}

  /** Parses like apimachinery's ParseQuantity (JSON numbers are read as their decimal text). */
  static parse(input: string | number): Quantity {
    const text = typeof input === "number" ? String(input) : input.trim();
    if (text.length === 0) throw new QuantityParseError(FORMAT_MESSAGE);
    if (text === "0") return new Quantity(0n, "DecimalSI", text);
    const split = splitQuantity(text);
    const suffix = interpretSuffix(split.suffix);
    let nanos = toNanos(split, suffix);
    let format = suffix.format;
    if (format === "BinarySI") {
      const maxNanos = MAX_INT64 * NANOS_PER_UNIT;
      if (nanos > maxNanos) nanos = maxNanos;
      if (nanos > 0n && nanos < NANOS_PER_UNIT) format = "DecimalSI";
    }
    const written = keepsWrittenForm(split, suffix) ? text : undefined;
    return new Quantity(nanos, format, written);
  }

  /** Like parse, but undefined for text the apiserver would have refused. */
  static tryParse(input: unknown): Quantity | undefined {
    if (typeof input !== "string" && typeof input !== "number") return undefined;
    if (typeof input === "number" && !Number.isFinite(input)) return undefined;
    try {
      return Quantity.parse(input);
    } catch (error) {
      if (error instanceof QuantityParseError) return undefined;
      throw error;
    }
  }

  /** An integer quantity, like resource.NewQuantity(value, format). */
  static fromInteger(value: bigint, format: QuantityFormat): Quantity {
    return new Quantity(value * NANOS_PER_UNIT, format);
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  /** Value() in Go: the integer value, any fraction rounded away from zero ("100m" → 1, "-1.5" → -2). */
  value(): bigint {
    return divideAwayFromZero(this.nanos, NANOS_PER_UNIT);
  }

  compare(other: Quantity): -1 | 0 | 1 {
    if (this.nanos === other.nanos) return 0;
    return this.nanos < other.nanos ? -1 : 1;
  }

  /** The text Go's MarshalJSON writes: the parsed text when it was canonical, else the canonical form. */
  toString(): string {
    return this.writtenForm ?? this.canonical();
  }

  private canonical(): string {
    if (this.nanos === 0n) return "0";
    const useBinary =
      this.format === "BinarySI" &&
      (this.nanos <= -1024n * NANOS_PER_UNIT || this.nanos >= 1024n * NANOS_PER_UNIT) &&
      this.nanos % NANOS_PER_UNIT === 0n;
    if (useBinary) {
      const { remaining, times } = removeFactors(this.nanos / NANOS_PER_UNIT, 1024n);
      return `${remaining}${binarySuffix(times * 10)}`;
    }
    const format = this.format === "BinarySI" ? "DecimalSI" : this.format;
    const reduced = removeFactors(this.nanos, 10n);
    let mantissa = reduced.remaining;
    let exponent = NANO_EXPONENT + reduced.times;
    while (exponent % 3 !== 0) {
      mantissa *= 10n;
      exponent--;
    }
    return `${mantissa}${decimalSuffix(exponent, format)}`;
  }
}
