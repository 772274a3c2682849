import { configDefaults, defineConfig } from "vitest/config";
import AfterTheOthersLast from "./test/support/after-the-others-last.js";

const UNIT_TESTS = [
  "pkg/**/*.test.ts",
  "cmd/**/*.test.ts",
  "hack/**/*.test.ts",
  "deploy/**/*.test.ts",
  "bench/**/*.test.ts",
  "test/support/**/*.test.ts",
];
const ROOT_TESTS = UNIT_TESTS.map((glob) => glob.replace(/\.test\.ts$/, ".root.test.ts"));

// Four projects: `unit` (tests beside the code, fakes only; `unit-root` those of them that need root), `integration` (a real kube-apiserver
// from deploy/local; its global setup brings the control plane up once) and `e2e` (the whole suite
// installed through the operator on the local cluster, driven with kubectl and virtctl). The Makefile
// runs e2e in a second vitest run, since its cluster carries KubeVirt and integration's must not.
export default defineConfig({
  test: {
    reporters: ["default", "./test/support/failure-summary-reporter.ts"],
    // Vitest takes a sequencer only here, for every project; it moves only the e2e files that wait for the others.
    sequence: { sequencer: AfterTheOthersLast },
    projects: [
      {
        test: {
          name: "unit",
          include: UNIT_TESTS,
          exclude: [...configDefaults.exclude, ...ROOT_TESTS],
          environment: "node",
        },
      },
      {
        // Tests that change the machine as root (namespaces, mounts, propagation): one file at a time, since
        // shared mount propagation in one would reach the mounts another is making.
        test: {
          name: "unit-root",
          include: ROOT_TESTS,
          environment: "node",
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/integration/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/e2e/global-setup.ts"],
          // Files share the cluster side by side, but for those that disturb it (cluster-share.ts).
          setupFiles: ["test/e2e/cluster-share.ts"],
          testTimeout: 300_000,
          hookTimeout: 900_000,
          // Three files at a time on two cores: the files wait (boots, timeouts, migrations held at 1 MiB/s)
          // more than they compute; measured on 2026-12-07, 1112 s for the suite against 1375 s two at a time.
          maxWorkers: 3,
        },
      },
    ],
  },
});
