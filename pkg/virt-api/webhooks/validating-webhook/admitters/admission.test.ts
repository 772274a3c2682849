import { describe, expect, it } from "vitest";
import { toValidationResponse } from "./admission.js";
import { invalid } from "./testing.js";

describe("validation responses", () => {
  it("allow without causes, passing warnings on", () => {
    expect(toValidationResponse({ causes: [], warnings: [] })).toEqual({ allowed: true });
    expect(toValidationResponse({ causes: [], warnings: ["old"] })).toEqual({
      allowed: true,
      warnings: ["old"],
    });
  });

  it("deny with 422 Invalid, joining the messages of the causes", () => {
    const causes = [invalid("spec.a", "a is wrong"), invalid("spec.b", "b is wrong")];
    expect(toValidationResponse({ causes, warnings: [] })).toEqual({
      allowed: false,
      result: { message: "a is wrong, b is wrong", code: 422, reason: "Invalid", details: { causes } },
    });
  });

  it("report ten causes and count the rest, as upstream does", () => {
    const causes = Array.from({ length: 12 }, (_, i) => invalid(`spec.f${i}`, `m${i}`));
    const response = toValidationResponse({ causes, warnings: [] });
    expect(response.result?.details?.causes).toEqual(causes.slice(0, 10));
    expect(response.result?.message).toBe(
      "m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, and 2 more validation errors",
    );
  });
});
