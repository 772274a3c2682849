import { describe, expect, it } from "vitest";
import { Selector, type LabelSelector } from "./label-selector.js";

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
