// Go's encoding/json as upstream's handlers and virtctl meet untrusted bytes: the scanner's syntax errors
// (`invalid character 'h' in literal true (expecting 'r')`, `unexpected end of JSON input`), checked before
// anything is decoded as json.Unmarshal does, and the one value a json.Decoder reads. Messages built from
// these reach users verbatim in upstream (e.g. "Can not unmarshal Request body to struct, error: ..."),
// so they are Go's, byte for byte: the scanner works on UTF-8 bytes, not on JavaScript characters.

/** json.Unmarshal's nesting limit. */
const MAX_NESTING_DEPTH = 10000;

type Step =
  | "beginValueOrEmpty"
  | "beginValue"
  | "beginStringOrEmpty"
  | "beginString"
  | "endValue"
  | "endTop"
  | "inString"
  | "inStringEsc"
  | "inStringEscU"
  | "inStringEscU1"
  | "inStringEscU12"
  | "inStringEscU123"
  | "neg"
  | "one"
  | "zero"
  | "dot"
  | "dot0"
  | "e"
  | "eSign"
  | "e0"
  | "literal"
  | "error";

const enum Parse {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

/** What the literal states expect next, after `t`, `f`, `n`. */
const LITERALS: Record<string, string> = { t: "true", f: "false", n: "null" };

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

const QUOTE_ESCAPES: Record<number, string> = {
  0x07: "\\a",
  0x08: "\\b",
  0x0c: "\\f",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
  0x0b: "\\v",
  0x5c: "\\\\",
};

/**
 * Go's quoteChar: one byte as `string(c)` makes it a rune (U+0000..U+00FF), quoted by strconv.Quote
 * between single quotes. Latin-1 is printable except its controls, U+00A0 and the soft hyphen U+00AD.
 */
export function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const escape = QUOTE_ESCAPES[c];
  if (escape !== undefined) return `'${escape}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, "0")}'`;
  return `'${String.fromCharCode(c)}'`;
}

/** What a byte did, as the scanner's step results the callers look at. */
const enum Scan {
  Continue,
  /** The top-level value ended before this byte (Go's scanEnd). */
  End,
  /** This byte closed the top-level object or array. */
  EndContainer,
  Error,
}

/** encoding/json's scanner state machine, one byte at a time; the first error sticks. */
class Scanner {
  private step: Step = "beginValue";
  private readonly parseState: Parse[] = [];
  endTop = false;
  error: string | undefined;
  /** The literal being matched after its first byte, and how much of it is matched. */
  private literal = "";
  private literalAt = 0;

  feed(c: number): Scan {
    return this.dispatch(c);
  }

  /** The end of input: what json.Unmarshal reports when the value is incomplete. */
  eof(): void {
    if (this.error !== undefined || this.endTop) return;
    this.dispatch(0x20);
    if (this.endTop) return;
    this.error ??= "unexpected end of JSON input";
  }

  private fail(c: number, context: string): Scan {
    this.step = "error";
    this.error = `invalid character ${quoteChar(c)} ${context}`;
    return Scan.Error;
  }

  private push(c: number, state: Parse): Scan {
    this.parseState.push(state);
    return this.parseState.length > MAX_NESTING_DEPTH ? this.fail(c, "exceeded max depth") : Scan.Continue;
  }

  private pop(): Scan {
    this.parseState.pop();
    if (this.parseState.length === 0) {
      this.step = "endTop";
      this.endTop = true;
      return Scan.EndContainer;
    }
    this.step = "endValue";
    return Scan.Continue;
  }

  private next(step: Step): Scan {
    this.step = step;
    return Scan.Continue;
  }

  private dispatch(c: number): Scan {
    switch (this.step) {
      case "beginValueOrEmpty":
        if (isSpace(c)) return Scan.Continue;
        return c === 0x5d ? this.endValue(c) : this.beginValue(c);
      case "beginValue":
        return this.beginValue(c);
      case "beginStringOrEmpty":
        if (isSpace(c)) return Scan.Continue;
        if (c === 0x7d) {
          this.parseState[this.parseState.length - 1] = Parse.ObjectValue;
          return this.endValue(c);
        }
        return this.beginString(c);
      case "beginString":
        return this.beginString(c);
      case "endValue":
        return this.endValue(c);
      case "endTop":
        return this.endTopState(c);
      case "inString":
        if (c === 0x22) return this.next("endValue");
        if (c === 0x5c) return this.next("inStringEsc");
        return c < 0x20 ? this.fail(c, "in string literal") : Scan.Continue;
      case "inStringEsc":
        if (STRING_ESCAPES.has(c)) return this.next("inString");
        if (c === 0x75) return this.next("inStringEscU");
        return this.fail(c, "in string escape code");
      case "inStringEscU":
      case "inStringEscU1":
      case "inStringEscU12":
      case "inStringEscU123":
        if (!isHex(c)) return this.fail(c, "in \\u hexadecimal character escape");
        return this.next(HEX_STEPS[this.step] ?? "inString");
      case "neg":
        if (c === 0x30) return this.next("zero");
        if (c >= 0x31 && c <= 0x39) return this.next("one");
        return this.fail(c, "in numeric literal");
      case "one":
        return isDigit(c) ? Scan.Continue : this.zero(c);
      case "zero":
        return this.zero(c);
      case "dot":
        return isDigit(c) ? this.next("dot0") : this.fail(c, "after decimal point in numeric literal");
      case "dot0":
        if (isDigit(c)) return Scan.Continue;
        return c === 0x65 || c === 0x45 ? this.next("e") : this.endValue(c);
      case "e":
        return c === 0x2b || c === 0x2d ? this.next("eSign") : this.eSign(c);
      case "eSign":
        return this.eSign(c);
      case "e0":
        return isDigit(c) ? Scan.Continue : this.endValue(c);
      case "literal": {
        const expected = this.literal.charCodeAt(this.literalAt);
        if (c !== expected) {
          return this.fail(c, `in literal ${this.literal} (expecting '${String.fromCharCode(expected)}')`);
        }
        this.literalAt++;
        return this.literalAt === this.literal.length ? this.next("endValue") : Scan.Continue;
      }
      case "error":
        return Scan.Error;
    }
  }

  private beginValue(c: number): Scan {
    if (isSpace(c)) return Scan.Continue;
    if (c === 0x7b) {
      this.step = "beginStringOrEmpty";
      return this.push(c, Parse.ObjectKey);
    }
    if (c === 0x5b) {
      this.step = "beginValueOrEmpty";
      return this.push(c, Parse.ArrayValue);
    }
    if (c === 0x22) return this.next("inString");
    if (c === 0x2d) return this.next("neg");
    if (c === 0x30) return this.next("zero");
    if (c >= 0x31 && c <= 0x39) return this.next("one");
    const literal = LITERALS[String.fromCharCode(c)];
    if (literal === undefined) return this.fail(c, "looking for beginning of value");
    this.literal = literal;
    this.literalAt = 1;
    return this.next("literal");
  }

  private beginString(c: number): Scan {
    if (isSpace(c)) return Scan.Continue;
    return c === 0x22 ? this.next("inString") : this.fail(c, "looking for beginning of object key string");
  }

  private endValue(c: number): Scan {
    const n = this.parseState.length;
    if (n === 0) {
      this.step = "endTop";
      this.endTop = true;
      return this.endTopState(c);
    }
    if (isSpace(c)) return this.next("endValue");
    switch (this.parseState[n - 1]) {
      case Parse.ObjectKey:
        if (c !== 0x3a) return this.fail(c, "after object key");
        this.parseState[n - 1] = Parse.ObjectValue;
        return this.next("beginValue");
      case Parse.ObjectValue:
        if (c === 0x2c) {
          this.parseState[n - 1] = Parse.ObjectKey;
          return this.next("beginString");
        }
        return c === 0x7d ? this.pop() : this.fail(c, "after object key:value pair");
      default:
        if (c === 0x2c) return this.next("beginValue");
        return c === 0x5d ? this.pop() : this.fail(c, "after array element");
    }
  }

  /**
   * The value ended before this byte. A non-space byte is an error for json.Unmarshal (reported once the
   * scan goes on), while a json.Decoder stops here and leaves the byte to the next value.
   */
  private endTopState(c: number): Scan {
    if (!isSpace(c)) this.fail(c, "after top-level value");
    return Scan.End;
  }

  private zero(c: number): Scan {
    if (c === 0x2e) return this.next("dot");
    if (c === 0x65 || c === 0x45) return this.next("e");
    return this.endValue(c);
  }

  private eSign(c: number): Scan {
    return isDigit(c) ? this.next("e0") : this.fail(c, "in exponent of numeric literal");
  }
}

const STRING_ESCAPES = new Set([...'bfnrt\\/"'].map((c) => c.charCodeAt(0)));
const HEX_STEPS: Partial<Record<Step, Step>> = {
  inStringEscU: "inStringEscU1",
  inStringEscU1: "inStringEscU12",
  inStringEscU12: "inStringEscU123",
  inStringEscU123: "inString",
};

/** json.Valid's check, as json.Unmarshal runs it first: undefined, or Go's SyntaxError message. */
export function goJsonSyntaxError(data: Uint8Array): string | undefined {
  const scanner = new Scanner();
  for (const c of data) if (scanner.feed(c) === Scan.Error) return scanner.error;
  scanner.eof();
  return scanner.error;
}

/**
 * The first value a json.Decoder reads from `data`: where it ends, or the error Decode returns (a
 * SyntaxError with its byte offset, `EOF` for no value at all, `unexpected EOF` for a cut one).
 */
export function goJsonDecodeFirst(
  data: Uint8Array,
): { ok: true; end: number } | { ok: false; message: string; offset?: number } {
  const scanner = new Scanner();
  for (let i = 0; i < data.length; i++) {
    const scan = scanner.feed(data[i] ?? 0);
    if (scan === Scan.End) return { ok: true, end: i };
    if (scan === Scan.EndContainer) return { ok: true, end: i + 1 };
    if (scan === Scan.Error) return { ok: false, message: scanner.error ?? "", offset: i + 1 };
  }
  if (scanner.feed(0x20) === Scan.End) return { ok: true, end: data.length };
  const blank = data.every((c) => isSpace(c));
  return { ok: false, message: blank ? "EOF" : "unexpected EOF" };
}

/** json.Unmarshal's name for the JSON type of a decoded value, as its UnmarshalTypeError prints it. */
export function goJsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "object") return "object";
  return typeof value;
}

export type GoUnmarshal = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * json.Unmarshal into a Go value: the syntax check over the whole input first, then the decoded value;
 * a number that overflows float64 fails as Go's decoder refuses it (the first one, in document order).
 */
export function goUnmarshal(data: Uint8Array): GoUnmarshal {
  const syntax = goJsonSyntaxError(data);
  if (syntax !== undefined) return { ok: false, message: syntax };
  const text = Buffer.from(data).toString("utf8");
  const overflow = firstOverflowingNumber(text);
  if (overflow !== undefined) {
    return { ok: false, message: `json: cannot unmarshal number ${overflow} into Go value of type float64` };
  }
  return { ok: true, value: JSON.parse(text) as unknown };
}

/** Number literals outside strings whose value is no finite float64. */
function firstOverflowingNumber(text: string): string | undefined {
  const tokens = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;
  for (let match = tokens.exec(text); match !== null; match = tokens.exec(text)) {
    const token = match[0];
    if (!token.startsWith('"') && !Number.isFinite(Number(token))) return token;
  }
  return undefined;
}

/** Go's json.Marshal (or MarshalIndent with `indent`): JSON.stringify plus Go's escapes of <, > and & and U+2028/9. */
export function goMarshal(value: unknown, indent = ""): string {
  return JSON.stringify(value, null, indent).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
