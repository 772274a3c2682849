import { describe, expect, it } from "vitest";
import { boolFlag, intFlag } from "./flags.js";

describe("flag values as pflag parses them", () => {
  it.each([
    [undefined, 7],
    ["3", 3],
    ["-2", -2],
    ["+4", 4],
  ])("int %s is %d", (text, value) => expect(intFlag("workers", text, 7)).toBe(value));

  it.each([
    [undefined, true],
    ["false", false],
    ["F", false],
    ["1", true],
  ])("bool %s is %s", (text, value) => expect(boolFlag("labeller", text, true)).toBe(value));

  it("refuses what strconv refuses, in pflag's words", () => {
    expect(() => intFlag("workers", "many", 1)).toThrow(
      'invalid argument "many" for "--workers" flag: strconv.ParseInt: parsing "many": invalid syntax',
    );
    expect(() => boolFlag("labeller", "yes", true)).toThrow(
      'invalid argument "yes" for "--labeller" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    );
  });
});
