import { describe, expect, it } from "vitest";
import { parseSampleLine } from "./exposition.js";

describe("parseSampleLine", () => {
  it("reads name, escaped labels, value and an optional timestamp", () => {
    expect(parseSampleLine('kubevirt_vmi_info{name="a\\"b",node="n\\\\1",} 1 1700000000000')).toEqual({
      name: "kubevirt_vmi_info",
      labels: { name: 'a"b', node: "n\\1" },
      value: 1,
      valueText: "1",
    });
    expect(parseSampleLine("up +Inf")).toMatchObject({ name: "up", labels: {}, value: Infinity });
  });

  it.each([
    ['{x="1"} 1', "no metric name"],
    ['m{x="1" 1', '"," or "}" expected after label x'],
    ["m 0x10", 'the value "0x10" is not a number'],
    ["m", "no value"],
  ])("%s: %s", (line, why) => expect(parseSampleLine(line)).toBe(why));
});
