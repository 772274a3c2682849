import { describe, expect, it } from "vitest";
import { errorStart } from "./failure-summary-reporter.js";

describe("errorStart", () => {
  it("keeps a message's first lines, where a failure says what happened", () => {
    const message = ["the guest is not the one marked; events, newest first:", "a", "b", "c"].join("\n");
    expect(errorStart(message)).toBe(message);
  });

  it("stops after eight lines and 900 characters, so the tail CI keeps still reaches every failure", () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    expect(errorStart(lines.join("\n")).split("\n")).toEqual(lines.slice(0, 8));
    expect(errorStart("x".repeat(5000))).toHaveLength(900);
  });

  it("answers an empty string for an error without a message", () => {
    expect(errorStart(undefined)).toBe("");
  });
});
