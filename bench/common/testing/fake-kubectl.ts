// A stand-in for the cluster's kubectl, for the tests of what the benchmarks ask kubectl: an executable in a
// temporary folder that records each call (its arguments and stdin) and answers with the first rule whose
// words all stand among its arguments, or exits 0 with nothing.
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { KubectlOptions } from "../kubectl.js";

export interface KubectlRule {
  /** Words that must all be among the call's arguments. */
  when: string[];
  stdout?: string;
  /** Answers in turn, one a call, the last one again once they are used up (instead of stdout). */
  stdouts?: string[];
  stderr?: string;
  code?: number;
}

export interface KubectlCallRecord {
  args: string[];
  stdin: string;
}

const SCRIPT = `#!${process.execPath}
const fs = require("node:fs");
const path = require("node:path");
const dir = __dirname;
const args = process.argv.slice(2);
// As kubectl, stdin only for -f - (kubectlText leaves it open otherwise).
const fromStdin = args.some((arg, i) => arg === "-f" && args[i + 1] === "-");
const stdin = fromStdin ? fs.readFileSync(0, "utf8") : "";
fs.appendFileSync(path.join(dir, "calls.jsonl"), JSON.stringify({ args, stdin }) + "\\n");
const rules = JSON.parse(fs.readFileSync(path.join(dir, "rules.json"), "utf8"));
const index = rules.findIndex((r) => r.when.every((word) => args.includes(word)));
const rule = rules[index] || {};
let stdout = rule.stdout || "";
if (rule.stdouts) {
  const counter = path.join(dir, "rule-" + index + ".count");
  const n = fs.existsSync(counter) ? Number(fs.readFileSync(counter, "utf8")) : 0;
  fs.writeFileSync(counter, String(n + 1));
  stdout = rule.stdouts[Math.min(n, rule.stdouts.length - 1)];
}
process.stdout.write(stdout);
process.stderr.write(rule.stderr || "");
process.exitCode = rule.code || 0;
`;

export class FakeKubectl implements KubectlOptions {
  readonly kubectl: string;
  readonly kubeconfig: string;

  private constructor(readonly dir: string) {
    this.kubectl = path.join(dir, "kubectl");
    this.kubeconfig = path.join(dir, "kubeconfig");
  }

  static async create(rules: KubectlRule[] = []): Promise<FakeKubectl> {
    const fake = new FakeKubectl(await mkdtemp(path.join(tmpdir(), "bench-fake-kubectl-")));
    // A CommonJS script whatever package.json says above the temporary folder.
    await writeFile(path.join(fake.dir, "package.json"), '{"type":"commonjs"}');
    await writeFile(fake.kubectl, SCRIPT);
    await chmod(fake.kubectl, 0o755);
    await writeFile(fake.kubeconfig, "");
    await fake.answer(rules);
    return fake;
  }

  async answer(rules: KubectlRule[]): Promise<void> {
    await writeFile(path.join(this.dir, "rules.json"), JSON.stringify(rules));
  }

  /** Every call so far, without the --kubeconfig and --request-timeout flags kubectlText puts first. */
  async calls(): Promise<KubectlCallRecord[]> {
    const text = await readFile(path.join(this.dir, "calls.jsonl"), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as KubectlCallRecord)
      .map((call) => ({ ...call, args: call.args.slice(3) }));
  }

  /** The --request-timeout each call was made with. */
  async requestTimeouts(): Promise<string[]> {
    const text = await readFile(path.join(this.dir, "calls.jsonl"), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as KubectlCallRecord).args[2] ?? "");
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
