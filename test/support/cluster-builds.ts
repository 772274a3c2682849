// What a test project's global setup builds before its cluster starts, as `make test` would have: the binaries
// (cached), the test guest when the project boots VMs, and the component images when KubeVirt's Pods run from them
// (layout().componentImages, the default). Each step takes seconds when nothing changed.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { Layout } from "../../deploy/local/cluster/layout.js";

function run(command: string, ...args: string[]): void {
  const result = spawnSync(command, args, { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${[command, ...args].join(" ")} failed (exit ${result.status})`);
}

export function buildWhatTheClusterRuns(l: Layout, options: { testGuest: boolean }): void {
  run("bash", join(l.repoRoot, "deploy/local/build-binaries.sh"));
  if (options.testGuest) run("bash", join(l.repoRoot, "deploy/local/guest/build-test-guest.sh"));
  if (l.componentImages === "built") run("npx", "tsx", join(l.repoRoot, "hack/build-images/main.ts"));
}
