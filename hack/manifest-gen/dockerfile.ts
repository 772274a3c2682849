// Just enough of the Dockerfile syntax to check the component images: stages, COPY sources, RUN scripts,
// USER and ENTRYPOINT (exec form), with `\` line continuations.

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  name?: string;
  base: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, " ").split("\n");
  const stages: Stage[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(\S+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`unreadable Dockerfile line: ${line}`);
    const keyword = (match[1] ?? "").toUpperCase();
    const args = match[2] ?? "";
    if (keyword === "FROM") {
      const [base = "", , name] = args.split(/\s+/);
      stages.push({ base, instructions: [], ...(name ? { name } : {}) });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`${keyword} before FROM`);
    stage.instructions.push({ keyword, args });
  }
  return stages;
}

export interface CopyInstruction {
  from?: string;
  sources: string[];
  destination: string;
}

export function copiesOf(stage: Stage): CopyInstruction[] {
  return stage.instructions
    .filter((i) => i.keyword === "COPY")
    .map((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
      const paths = words.filter((w) => !w.startsWith("--"));
      return { ...(from ? { from } : {}), sources: paths.slice(0, -1), destination: paths.at(-1) ?? "" };
    });
}

export function entrypointOf(stage: Stage): string[] | undefined {
  const entry = stage.instructions.filter((i) => i.keyword === "ENTRYPOINT").at(-1);
  return entry ? (JSON.parse(entry.args) as string[]) : undefined;
}

export function userOf(stage: Stage): string | undefined {
  return stage.instructions.filter((i) => i.keyword === "USER").at(-1)?.args;
}

export function runScripts(stage: Stage): string[] {
  return stage.instructions.filter((i) => i.keyword === "RUN").map((i) => i.args);
}
