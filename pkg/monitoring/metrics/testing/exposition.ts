// Reads Prometheus text exposition back into samples, so tests assert names, labels and values rather than
// the text's label order.
import { parseSampleLine } from "../exposition.js";
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const sample = parseSampleLine(line);
    if (typeof sample === "string") throw new Error(`not a sample line: ${line} (${sample})`);
    samples.push({ name: sample.name, labels: sample.labels, value: sample.value });
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
