// One line of Prometheus's text exposition format read back: a metric name, its labels and its value (and an
// optional timestamp), or why the line is not one. prom-client writes the format but reads none of it, so this is
// written here; the tests' samplesOf (testing/exposition.ts) and bench/vmi-burst's apiserver counts both use it.

export interface SampleLine {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** The value as written (`+Inf`, `1e3` ...), for messages. */
  valueText: string;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
/** A sample value as Prometheus writes one (Go's strconv.FormatFloat), or an integer. */
const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?Inf$|^NaN$/;
const TIMESTAMP = /^-?\d+$/;

/** The metric name a sample line starts with, if any. */
export const metricNameOf = (line: string): string | undefined => NAME.exec(line)?.[0];

const skipBlanks = (text: string, at: number): number => {
  while (text[at] === " " || text[at] === "\t") at++;
  return at;
};

/** `{name="value",...}` at the start of `text`: the labels and what follows, or why not. */
function parseLabels(text: string): { labels: Record<string, string>; rest: string } | string {
  const labels: Record<string, string> = {};
  let at = 1;
  for (;;) {
    at = skipBlanks(text, at);
    if (text[at] === "}") return { labels, rest: text.slice(at + 1) };
    const name = LABEL_NAME.exec(text.slice(at))?.[0];
    if (!name)
      return at >= text.length ? "unterminated label set" : `a label name expected at column ${at + 1}`;
    at = skipBlanks(text, at + name.length);
    if (text[at] !== "=") return `"=" expected after label ${name}`;
    at = skipBlanks(text, at + 1);
    if (text[at] !== '"') return `a quoted value expected for label ${name}`;
    at++;
    let value = "";
    for (;;) {
      const c = text[at];
      if (c === undefined) return `the value of label ${name} is not closed`;
      if (c === '"') break;
      if (c === "\\") {
        const escaped = text[at + 1];
        if (escaped === "n") value += "\n";
        else if (escaped === "\\" || escaped === '"') value += escaped;
        else return `unknown escape \\${escaped ?? ""} in the value of label ${name}`;
        at += 2;
        continue;
      }
      value += c;
      at++;
    }
    if (Object.hasOwn(labels, name)) return `label ${name} twice`;
    labels[name] = value;
    at = skipBlanks(text, at + 1);
    if (text[at] === ",") at++;
    else if (text[at] !== "}") return `"," or "}" expected after label ${name}`;
  }
}

/** One sample line (not a comment, not blank): its name, labels and value, or why it is unreadable. */
export function parseSampleLine(line: string): SampleLine | string {
  const name = metricNameOf(line);
  if (!name) return "no metric name";
  let rest = line.slice(name.length);
  let labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    const parsed = parseLabels(rest);
    if (typeof parsed === "string") return parsed;
    ({ labels, rest } = parsed);
  }
  const [valueText, timestamp, ...extra] = rest.trim().split(/[ \t]+/);
  if (!valueText) return "no value";
  if (extra.length > 0 || (timestamp !== undefined && !TIMESTAMP.test(timestamp)))
    return "more than a value and a timestamp after the labels";
  if (!FLOAT.test(valueText)) return `the value ${JSON.stringify(valueText)} is not a number`;
  return { name, labels, value: Number(valueText.replace(/Inf$/, "Infinity")), valueText };
}
