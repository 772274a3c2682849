import { describe, expect, it } from "vitest";
import { boolFlag, intFlag, parseGoUint32, positiveDurationFlag } from "./flags.js";

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

  it.each([
    [undefined, 300_000],
    ["60s", 60_000],
    ["1m30s", 90_000],
    ["250ms", 250],
  ])("duration %s is %d ms", (text, ms) => expect(positiveDurationFlag("timeout", text, 300_000)).toBe(ms));

  it.each([
    ["60", 'invalid argument "60" for "--timeout" flag: time: invalid duration "60"'],
    ["soon", 'invalid argument "soon" for "--timeout" flag: time: invalid duration "soon"'],
    ["0s", 'invalid argument "0s" for "--timeout" flag: must be a positive duration'],
    ["-5s", 'invalid argument "-5s" for "--timeout" flag: must be a positive duration'],
  ])("refuses the duration %s", (text, message) => {
    expect(() => positiveDurationFlag("timeout", text, 1)).toThrow(message);
  });
});

describe("parseGoUint32: strconv.ParseUint(text, 0, 32)", () => {
  it.each([
    ["0", 0],
    ["2", 2],
    ["010", 8],
    ["0o17", 15],
    ["0x1F", 31],
    ["0b101", 5],
    ["1_000", 1000],
    ["0x_ff", 255],
    ["4294967295", 4294967295],
  ])("%s is %d", (text, value) => expect(parseGoUint32(text)).toBe(value));

  it.each([
    ["", "invalid syntax"],
    ["two", "invalid syntax"],
    ["-2", "invalid syntax"],
    ["+2", "invalid syntax"],
    ["08", "invalid syntax"],
    ["0x", "invalid syntax"],
    ["1__0", "invalid syntax"],
    ["_1", "invalid syntax"],
    ["1_", "invalid syntax"],
    ["4294967296", "value out of range"],
    ["99999999999x", "value out of range"],
  ])("%j is refused: %s", (text, reason) => expect(parseGoUint32(text)).toBe(reason));
});
