import { defineConfig } from "vitest/config";

// Two projects: `unit` (tests beside the code, fakes only) and `integration` (a real
// kube-apiserver from deploy/local; its global setup brings the control plane up once).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["pkg/**/*.test.ts", "cmd/**/*.test.ts", "hack/**/*.test.ts", "deploy/**/*.test.ts"],
          environment: "node",
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
    ],
  },
});
