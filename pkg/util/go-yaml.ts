// YAML as sigs.k8s.io/yaml's Marshal prints a Go object: its JSON re-read and written by go-yaml v2
// (go.yaml.in/yaml/v2), so that `virtctl create vm | kubectl apply -f -` reads exactly what upstream's
// output reads. That means map keys in go-yaml's order, sequences not indented under their key,
// no line folding, and each string in the style go-yaml picks: plain unless it would read back as
// another type (then double-quoted) or its characters forbid it (then single-, else double-quoted),
// a literal block when it holds a newline and may be one.
import { Document, isScalar, visit } from "yaml";
import type { Pair } from "yaml";

type Style = "PLAIN" | "QUOTE_SINGLE" | "QUOTE_DOUBLE" | "BLOCK_LITERAL";

export function marshalGoYaml(value: unknown): string {
  const doc = new Document(value, {
    sortMapEntries: (a: Pair, b: Pair) => compareKeys(String(keyOf(a)), String(keyOf(b))),
  });
  visit(doc, {
    Pair(_key, pair) {
      if (isScalar(pair.key) && typeof pair.key.value === "string") {
        pair.key.type = goScalarStyle(pair.key.value, true);
      }
    },
    Scalar(_key, node) {
      if (typeof node.value === "string" && node.type === undefined)
        node.type = goScalarStyle(node.value, false);
    },
  });
  return doc.toString({ lineWidth: 0, indentSeq: false, directives: false });
}

const keyOf = (pair: Pair): unknown => (isScalar(pair.key) ? pair.key.value : pair.key);

/** go-yaml's encoder choice for a string, after the emitter's analysis of its characters. */
export function goScalarStyle(text: string, simpleKey: boolean): Style {
  const canUsePlain = goResolvesToString(text) && !isBase60Float(text);
  const analysis = analyzeScalar(text);
  if (text.includes("\n")) {
    return analysis.blockAllowed && !simpleKey ? "BLOCK_LITERAL" : "QUOTE_DOUBLE";
  }
  if (!canUsePlain) return "QUOTE_DOUBLE";
  if (analysis.blockPlainAllowed) return "PLAIN";
  return analysis.singleQuotedAllowed ? "QUOTE_SINGLE" : "QUOTE_DOUBLE";
}

// --- go-yaml's resolve(): would the plain text read back as something other than a string?

const RESOLVED = new Set([
  ..."y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF".split(" "),
  ..."~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<".split(" "),
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function hintOf(first: string): "sign" | "digit" | "map" | "dot" | undefined {
  if (first === "+" || first === "-") return "sign";
  if (first >= "0" && first <= "9") return "digit";
  if ("yYnNtTfFoO~".includes(first)) return "map";
  if (first === ".") return "dot";
  return undefined;
}

function goResolvesToString(text: string): boolean {
  if (text === "") return false;
  const hint = hintOf(text.charAt(0));
  if (hint === undefined) return true;
  if (RESOLVED.has(text)) return false;
  if (hint === "map") return true;
  if (hint === "dot") return !isGoFloat(text);
  if (isGoTimestamp(text)) return false;
  const plain = text.replaceAll("_", "");
  if (parseGoInteger(plain, 0) !== undefined) return false;
  if (YAML_STYLE_FLOAT.test(plain) && isGoFloat(plain)) return false;
  if (plain.startsWith("0b")) return parseGoInteger(plain.slice(2), 2) === undefined;
  if (plain.startsWith("-0b")) return parseGoInteger(`-${plain.slice(3)}`, 2) === undefined;
  return true;
}

function isBase60Float(text: string): boolean {
  return /^[-+0-9]/.test(text) && text.includes(":") && BASE60_FLOAT.test(text);
}

/** strconv.ParseFloat of decimal text without error: finite (Go refuses what overflows). */
function isGoFloat(text: string): boolean {
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) && Number.isFinite(Number(text));
}

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/**
 * strconv.ParseInt(text, base, 64), falling back to ParseUint as go-yaml does: the value, or
 * undefined when Go refuses the text. Base 0 reads Go's 0x/0o/0b/0 prefixes.
 */
function parseGoInteger(text: string, base: 0 | 2): bigint | undefined {
  const negative = text.startsWith("-");
  const signed = negative || text.startsWith("+");
  let digits = signed ? text.slice(1) : text;
  let radix = base === 0 ? 10 : 2;
  if (base === 0 && digits.startsWith("0")) {
    const prefix = digits.charAt(1).toLowerCase();
    const prefixed = digits.length >= 3 ? { b: 2, o: 8, x: 16 }[prefix] : undefined;
    radix = prefixed ?? 8;
    digits = digits.slice(prefixed ? 2 : 1);
    if (digits === "" && !prefixed) return 0n;
  }
  if (digits === "") return undefined;
  let value = 0n;
  for (const character of digits.toLowerCase()) {
    const digit = Number.parseInt(character, 36);
    if (Number.isNaN(digit) || digit >= radix) return undefined;
    value = value * BigInt(radix) + BigInt(digit);
  }
  if (negative) return value <= INT64_MAX + 1n ? -value : undefined;
  if (value <= INT64_MAX) return value;
  // go-yaml's ParseUint fallback takes no sign.
  return !signed && value <= UINT64_MAX ? value : undefined;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The timestamp layouts go-yaml tries with time.Parse. */
function isGoTimestamp(text: string): boolean {
  const match =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?)?$/.exec(
      text,
    );
  if (!match) return false;
  const [year, month, day] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && !leap ? 28 : (DAYS_IN_MONTH[month - 1] ?? 0))) return false;
  const [hour, minute, second] = (
    match[4] ? [match[5], match[6], match[7]] : [match[8], match[9], match[10]]
  ).map((part) => Number(part ?? 0)) as [number, number, number];
  return hour < 24 && minute < 60 && second < 60;
}

// --- the emitter's yaml_emitter_analyze_scalar, on code points

interface Analysis {
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const isBreak = (c: string) => c === "\r" || c === "\n" || c === "\u0085" || c === "\u2028" || c === "\u2029";
/** Space or tab (is_blank); is_blankz adds line breaks and NUL. */
const isBlank = (c: string | undefined) => c === " " || c === "\t";
const isBlankOrBreak = (c: string) => isBlank(c) || isBreak(c) || c === "\0";

function isPrintable(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff)
  );
}

function analyzeScalar(text: string): Analysis {
  if (text === "") return { blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  const characters = [...text];
  let indicators = text.startsWith("---") || text.startsWith("...");
  let special = false;
  let lineBreaks = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  characters.forEach((c, i) => {
    const next = characters[i + 1];
    const followedByWhitespace = next === undefined || isBlank(next);
    if (i === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(c)) indicators = true;
      else if ((c === "?" || c === ":" || c === "-") && followedByWhitespace) indicators = true;
    } else if ((c === ":" && followedByWhitespace) || (c === "#" && precededByWhitespace)) {
      indicators = true;
    }
    if (!isPrintable(c)) special = true;
    if (c === " ") {
      if (previousBreak) breakSpace = true;
      [previousSpace, previousBreak] = [true, false];
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (previousSpace) spaceBreak = true;
      [previousSpace, previousBreak] = [false, true];
    } else {
      [previousSpace, previousBreak] = [false, false];
    }
    precededByWhitespace = isBlankOrBreak(c);
  });
  const first = characters[0] ?? "";
  const last = characters[characters.length - 1] ?? "";
  const edgeSpace = first === " " || isBreak(first) || last === " " || isBreak(last);
  return {
    blockPlainAllowed: !(edgeSpace || breakSpace || spaceBreak || special || lineBreaks || indicators),
    singleQuotedAllowed: !(breakSpace || spaceBreak || special),
    blockAllowed: !(last === " " || spaceBreak || special),
  };
}

// --- go-yaml's keyList.Less for string keys: other characters before letters, digit runs by value

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string | undefined) => c !== undefined && /\p{Nd}/u.test(c);
/** Go's `rune - '0'`, whatever the digit's script. */
const digitValue = (c: string | undefined) => BigInt((c?.codePointAt(0) ?? 48) - 48);

export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  return keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0;
}

function keyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i] ?? "";
    const bc = br[i] ?? "";
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return ac < bc;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ac === "0" || bc === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== "0") {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + digitValue(ar[ai]);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + digitValue(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ac < bc;
  }
  return ar.length < br.length;
}
