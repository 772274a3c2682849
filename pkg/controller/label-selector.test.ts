import { describe, expect, it } from "vitest";
import { Selector, type LabelSelector, type LabelSelectorRequirement } from "./label-selector.js";

const labels = { app: "web", tier: "frontend", "kubevirt.io/vm": "vm1" };

describe("Selector.fromLabelSelector", () => {
  it.each<[string, LabelSelector | null | undefined, boolean, string]>([
    ["missing selector selects nothing", undefined, false, ""],
    ["null selector selects nothing", null, false, ""],
    ["empty selector selects everything", {}, true, ""],
    ["matchLabels equal", { matchLabels: { app: "web" } }, true, "app=web"],
    ["matchLabels differ", { matchLabels: { app: "db" } }, false, "app=db"],
    [
      "In",
      { matchExpressions: [{ key: "tier", operator: "In", values: ["frontend", "backend"] }] },
      true,
      "tier in (backend,frontend)",
    ],
    [
      "NotIn",
      { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["frontend"] }] },
      false,
      "tier notin (frontend)",
    ],
    [
      "NotIn absent key",
      { matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] },
      true,
      "zone notin (a)",
    ],
    ["Exists", { matchExpressions: [{ key: "kubevirt.io/vm", operator: "Exists" }] }, true, "kubevirt.io/vm"],
    ["DoesNotExist", { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }, false, "!app"],
    [
      "all requirements must hold, rendered sorted by key",
      {
        matchLabels: { tier: "frontend", app: "web" },
        matchExpressions: [{ key: "b", operator: "DoesNotExist" }],
      },
      true,
      "app=web,!b,tier=frontend",
    ],
  ])("%s", (_name, selector, matches, rendered) => {
    const s = Selector.fromLabelSelector(selector);
    expect(s.matches(labels)).toBe(matches);
    expect(s.toString()).toBe(rendered);
  });

  it.each<[LabelSelector, RegExp]>([
    [
      { matchExpressions: [{ key: "a", operator: "Equals", values: ["x"] }] },
      /"Equals" is not a valid label selector operator/,
    ],
    [{ matchExpressions: [{ key: "a", operator: "In", values: [] }] }, /values set can't be empty/],
    [{ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }, /must be empty for exists/],
  ])("rejects %j", (selector, message) => {
    expect(() => Selector.fromLabelSelector(selector)).toThrow(message);
  });

  it("treats objects without labels as having none", () => {
    expect(Selector.everything().matches(undefined)).toBe(true);
    expect(Selector.fromLabels({ app: "web" }).matches(undefined)).toBe(false);
  });
});

describe("Selector.fromNodeSelectorRequirements", () => {
  const node = { "node-role.kubernetes.io/worker": "test", cores: "8" };

  it.each<[string, LabelSelectorRequirement[], boolean, string]>([
    ["no requirement selects everything", [], true, ""],
    [
      "NotIn",
      [{ key: "node-role.kubernetes.io/worker", operator: "NotIn", values: ["test"] }],
      false,
      "node-role.kubernetes.io/worker notin (test)",
    ],
    ["Gt holds", [{ key: "cores", operator: "Gt", values: ["4"] }], true, "cores>4"],
    ["Lt fails", [{ key: "cores", operator: "Lt", values: ["4"] }], false, "cores<4"],
    ["Gt on an absent label fails", [{ key: "memory", operator: "Gt", values: ["1"] }], false, "memory>1"],
  ])("%s", (_name, requirements, matches, rendered) => {
    const selector = Selector.fromNodeSelectorRequirements(requirements);
    expect(selector.matches(node)).toBe(matches);
    expect(selector.toString()).toBe(rendered);
  });

  it("reads a non-integer label as not matching Gt", () => {
    const selector = Selector.fromNodeSelectorRequirements([{ key: "cores", operator: "Gt", values: ["1"] }]);
    expect(selector.matches({ cores: "many" })).toBe(false);
  });

  it.each<[LabelSelectorRequirement, RegExp]>([
    [{ key: "a", operator: "Near", values: ["x"] }, /"Near" is not a valid label selector operator/],
    [{ key: "a", operator: "Gt", values: ["1", "2"] }, /exactly one value is required/],
    [{ key: "a", operator: "Lt", values: ["x"] }, /the value must be an integer/],
  ])("rejects %j", (requirement, message) => {
    expect(() => Selector.fromNodeSelectorRequirements([requirement])).toThrow(message);
  });

  it("leaves Gt out of label selectors, as metav1 does", () => {
    expect(() =>
      Selector.fromLabelSelector({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] }),
    ).toThrow(/"Gt" is not a valid label selector operator/);
  });
});
