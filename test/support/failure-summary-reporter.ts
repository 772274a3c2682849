// A vitest reporter that repeats, after everything else vitest prints, one line per failed test and its
// first error line. CI keeps only the tail of a long run's output; the default reporter names the failures
// far above the summary, where a tail no longer reaches.
import type { Reporter, TestModule } from "vitest/node";

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
      const firstLine = (result.errors?.[0]?.message ?? "").split("\n")[0] ?? "";
      failed.push({
        name: `${module.moduleId.split("/").slice(-2).join("/")} > ${test.fullName}`,
        error: firstLine,
      });
    }
    if (module.state() === "failed" && module.children.size === 0) {
      const firstLine = (module.errors()[0]?.message ?? "").split("\n")[0] ?? "";
      failed.push({ name: module.moduleId.split("/").slice(-2).join("/"), error: firstLine });
    }
  }
  return failed;
}

export default class FailureSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const failed = failedTests(modules);
    if (failed.length === 0) return;
    const lines = failed.map(({ name, error }) => `  FAILED ${name}\n         ${error.slice(0, 300)}`);
    process.stdout.write(`\nfailed tests (${failed.length}):\n${lines.join("\n")}\n`);
  }
}
