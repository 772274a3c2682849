// Vitest's file order, with the e2e files that wait until every other file has ended (a drain, a node's power
// cut: takeTheClusterAfterTheOthers in test/e2e/cluster-lock.ts) moved to the end. Such a file holds one of the
// two workers while it waits; started early, it would leave the other files one worker for most of the run.
import { readFileSync } from "node:fs";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const WAITS_FOR_THE_OTHERS = "takeTheClusterAfterTheOthers(";

function waitsForTheOthers(file: TestSpecification): boolean {
  try {
    return readFileSync(file.moduleId, "utf8").includes(WAITS_FOR_THE_OTHERS);
  } catch {
    return false;
  }
}

export default class AfterTheOthersLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const last = sorted.filter(waitsForTheOthers);
    if (last.length > 0) {
      const names = last.map((file) => file.moduleId.slice(file.moduleId.lastIndexOf("/") + 1));
      console.log(`[e2e] last, since they wait for every other file to end: ${names.join(", ")}`);
    }
    return [...sorted.filter((file) => !last.includes(file)), ...last];
  }
}
