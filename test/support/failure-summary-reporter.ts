// A vitest reporter that repeats, after everything else vitest prints, each failed test and the start of its
// error (a few lines: a failure message that says what happened needs more than one). CI keeps only the tail
// of a long run's output; the default reporter names the failures far above the summary, where a tail no
// longer reaches.
import type { Reporter, TestModule } from "vitest/node";

/** How much of each error the summary repeats. */
const ERROR_LINES = 8;
const ERROR_CHARS = 900;

export interface FailedTest {
  name: string;
  error: string;
}

export function failedTests(modules: ReadonlyArray<TestModule>): FailedTest[] {
  const failed: FailedTest[] = [];
  for (const module of modules) {
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state !== "failed") continue;
      failed.push({
        name: `${module.moduleId.split("/").slice(-2).join("/")} > ${test.fullName}`,
        error: errorStart(result.errors?.[0]?.message),
      });
    }
    if (module.state() === "failed" && module.children.size === 0) {
      failed.push({
        name: module.moduleId.split("/").slice(-2).join("/"),
        error: errorStart(module.errors()[0]?.message),
      });
    }
  }
  return failed;
}

/** The error's first lines, cut to what a tail of the output keeps room for. */
export function errorStart(message = ""): string {
  return message.split("\n").slice(0, ERROR_LINES).join("\n").slice(0, ERROR_CHARS);
}

export default class FailureSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const failed = failedTests(modules);
    if (failed.length === 0) return;
    const lines = failed.map(({ name, error }) => `  FAILED ${name}\n${error.replace(/^/gm, "         ")}`);
    process.stdout.write(`\nfailed tests (${failed.length}):\n${lines.join("\n")}\n`);
  }
}
