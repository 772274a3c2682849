// Reads Prometheus text exposition back into samples, so tests assert names, labels and values rather than
// the text's label order.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_match, char: string) => (char === "n" ? "\n" : char));
}

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name = "", value = ""] of (match[2] ?? "").matchAll(LABEL))
      labels[name] = unescapeLabel(value);
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

/** The samples named `name` whose labels include every one of `labels`. */
export function samplesOf(text: string, name: string, labels: Record<string, string> = {}): Sample[] {
  return parseExposition(text).filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The `# HELP` and `# TYPE` lines of a metric, as `[help, type]`. */
export function describedAs(text: string, name: string): [string | undefined, string | undefined] {
  const lines = text.split("\n");
  const help = lines.find((line) => line.startsWith(`# HELP ${name} `))?.slice(`# HELP ${name} `.length);
  const type = lines.find((line) => line.startsWith(`# TYPE ${name} `))?.slice(`# TYPE ${name} `.length);
  return [help, type];
}
