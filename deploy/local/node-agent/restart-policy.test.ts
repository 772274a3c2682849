import { describe, expect, it } from "vitest";
import type { Pod } from "./k8s-types.js";
import { containerKind, shouldRestart, type ContainerKind, type RestartPolicy } from "./restart-policy.js";

describe("shouldRestart", () => {
  it.each<[RestartPolicy, ContainerKind, number, boolean]>([
    ["Always", "regular", 0, true],
    ["OnFailure", "regular", 0, false],
    ["OnFailure", "regular", 1, true],
    ["Never", "regular", 1, false],
    ["Always", "init", 0, false],
    ["Always", "init", 1, true],
    ["Never", "init", 1, false],
    ["Never", "sidecar", 0, true],
    ["Never", "sidecar", 1, true],
    ["OnFailure", "sidecar", 0, true],
  ])("restartPolicy %s, %s container, exit %d: restart %s", (policy, kind, code, expected) => {
    expect(shouldRestart(policy, kind, code)).toBe(expected);
  });
});

describe("containerKind", () => {
  const pod = {
    metadata: { name: "p", uid: "u" },
    spec: {
      initContainers: [{ name: "setup" }, { name: "log", restartPolicy: "Always" }],
      containers: [{ name: "app" }],
    },
  } as Pod;
  it.each([
    ["setup", "init"],
    ["log", "sidecar"],
    ["app", "regular"],
  ])("%s is a %s container", (name, kind) => {
    expect(containerKind(pod, name)).toBe(kind);
  });
});
