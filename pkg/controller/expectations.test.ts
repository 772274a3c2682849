import { describe, expect, it } from "vitest";
import {
  ControllerExpectations,
  ExpectationsTimeoutMs,
  UIDTrackingControllerExpectations,
} from "./expectations.js";
import { silentLogger } from "./log.js";

function setup() {
  let now = 1_700_000_000_000;
  const clock = { now: () => now };
  const expectations = new ControllerExpectations("test", clock, silentLogger);
  return { expectations, advance: (ms: number) => (now += ms) };
}

describe("ControllerExpectations", () => {
  it("is satisfied for a controller that never set any", () => {
    expect(setup().expectations.satisfiedExpectations("ns/rs")).toBe(true);
  });

  it.each<[string, (e: ControllerExpectations) => void, boolean]>([
    ["2 creations expected, none seen", (e) => e.expectCreations("k", 2), false],
    ["2 creations expected, 1 seen", (e) => (e.expectCreations("k", 2), e.creationObserved("k")), false],
    [
      "2 creations expected, 2 seen",
      (e) => (e.expectCreations("k", 2), e.creationObserved("k"), e.creationObserved("k")),
      true,
    ],
    [
      "over-observed counts stay satisfied",
      (e) => (e.expectCreations("k", 1), e.creationObserved("k"), e.creationObserved("k")),
      true,
    ],
    ["1 deletion pending", (e) => e.expectDeletions("k", 1), false],
    ["adds and dels both needed", (e) => (e.setExpectations("k", 1, 1), e.creationObserved("k")), false],
    [
      "lowered by several at once",
      (e) => (e.setExpectations("k", 3, 2), e.lowerExpectations("k", 3, 2)),
      true,
    ],
    [
      "raised after being met",
      (e) => (e.expectCreations("k", 1), e.creationObserved("k"), e.raiseExpectations("k", 1, 0)),
      false,
    ],
    ["deleted", (e) => (e.expectCreations("k", 5), e.deleteExpectations("k")), true],
    ["set again replaces", (e) => (e.expectCreations("k", 5), e.setExpectations("k", 0, 0)), true],
    [
      "observations for unknown keys are ignored",
      (e) => (e.creationObserved("k"), e.raiseExpectations("k", 1, 0)),
      true,
    ],
  ])("%s -> satisfied=%s", (_name, act, satisfied) => {
    const { expectations } = setup();
    act(expectations);
    expect(expectations.satisfiedExpectations("k")).toBe(satisfied);
  });

  it("counts as satisfied once the expectations are older than 5 minutes", () => {
    const { expectations, advance } = setup();
    expectations.expectCreations("k", 1);
    advance(ExpectationsTimeoutMs);
    expect(expectations.satisfiedExpectations("k")).toBe(false);
    advance(1);
    expect(expectations.satisfiedExpectations("k")).toBe(true);
    expectations.expectCreations("k", 1); // setting again restarts the TTL
    expect(expectations.satisfiedExpectations("k")).toBe(false);
  });

  it("sums pending creations over controllers", () => {
    const { expectations } = setup();
    expectations.expectCreations("a", 3);
    expectations.expectCreations("b", 2);
    expectations.creationObserved("b");
    expect(expectations.allPendingCreations()).toBe(4);
  });
});

describe("UIDTrackingControllerExpectations", () => {
  it("counts each expected deletion once, whether seen as terminating update or as delete", () => {
    const { expectations } = setup();
    const tracking = new UIDTrackingControllerExpectations(expectations, silentLogger);
    tracking.expectDeletions("rs", ["ns/pod-a", "ns/pod-b"]);
    tracking.deletionObserved("rs", "ns/pod-a"); // deletionTimestamp set
    tracking.deletionObserved("rs", "ns/pod-a"); // final delete event
    tracking.deletionObserved("rs", "ns/unrelated");
    expect(tracking.satisfiedExpectations("rs")).toBe(false);
    expect(expectations.getExpectations("rs")?.del).toBe(1);
    tracking.deletionObserved("rs", "ns/pod-b");
    expect(tracking.satisfiedExpectations("rs")).toBe(true);
    expect(tracking.getUIDs("rs")?.size).toBe(0);
  });

  it("adds expected deletions one by one and forgets them all on delete", () => {
    const { expectations } = setup();
    const tracking = new UIDTrackingControllerExpectations(expectations, silentLogger);
    tracking.addExpectedDeletion("vm", "uid-1");
    tracking.addExpectedDeletion("vm", "uid-2");
    tracking.addExpectedDeletion("vm", "uid-2");
    expect(expectations.getExpectations("vm")?.del).toBe(2);
    tracking.deleteExpectations("vm");
    expect(tracking.getUIDs("vm")).toBeUndefined();
    expect(tracking.satisfiedExpectations("vm")).toBe(true);
  });
});
