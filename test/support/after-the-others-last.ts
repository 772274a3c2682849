// Vitest's file order, with the e2e files that need the cluster to themselves moved to the end: first those
// that take it alone for a disruption (takeTheClusterAlone in test/e2e/cluster-lock.ts: a component killed or
// restarted), then those that wait until every other file has ended (a drain, a node's power cut:
// takeTheClusterAfterTheOthers). Such a file holds one of the two workers while it waits, and file locks let
// newly started files share the cluster ahead of a waiting one: started early, it would wait for nearly the
// whole run (migration-faults did, 750 s of which ~110 s were its own) and leave the others one worker.
import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The later a file's group, the later it runs; 0 for the files that share the cluster throughout. */
const GROUPS: ReadonlyArray<{ call: string; group: number }> = [
  { call: "takeTheClusterAlone(", group: 1 },
  { call: "takeTheClusterAfterTheOthers(", group: 2 },
];

function groupOf(file: TestSpecification): number {
  let text = "";
  try {
    text = readFileSync(file.moduleId, "utf8");
  } catch {
    return 0;
  }
  return Math.max(0, ...GROUPS.filter(({ call }) => text.includes(call)).map(({ group }) => group));
}

export default class AfterTheOthersLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const groups = new Map(sorted.map((file) => [file, groupOf(file)]));
    const last = sorted.filter((file) => (groups.get(file) ?? 0) > 0);
    if (last.length > 0) {
      const names = last.map((file) => file.moduleId.slice(file.moduleId.lastIndexOf("/") + 1));
      console.log(`[e2e] last, since they need the cluster to themselves: ${names.join(", ")}`);
    }
    // a stable sort: vitest's order within each group
    return [...sorted].sort((a, b) => (groups.get(a) ?? 0) - (groups.get(b) ?? 0));
  }
}
