import { describe, expect, it } from "vitest";
import { formatTable, namesThenFigures, spreadRow } from "./table.js";

describe("formatTable", () => {
  it("pads columns to their widest cell, figures on the right, rules between sections", () => {
    const lines = formatTable(
      [
        [["NAME", "MiB"]],
        [
          ["a", "1.5"],
          ["longer", "12.0"],
        ],
        [["sum", "13.5"]],
      ],
      namesThenFigures(1, 2),
    );
    expect(lines).toEqual([
      "NAME     MiB",
      "------  ----",
      "a        1.5",
      "longer  12.0",
      "------  ----",
      "sum     13.5",
    ]);
  });

  it("treats missing cells as empty and cuts trailing blanks", () => {
    expect(formatTable([[["A", "B"]], [["x"]]])).toEqual(["A  B", "-  -", "x"]);
  });

  it("sums a figure up as min / median / max of the values measured, then its extra cells", () => {
    const format = (value: number | undefined): string => (value === undefined ? "n/a" : value.toFixed(1));
    expect(spreadRow("wall s", [3, undefined, 1, 2], format, "<= 10")).toEqual([
      "wall s",
      "1.0",
      "2.0",
      "3.0",
      "<= 10",
    ]);
    expect(spreadRow("none", [undefined], format)).toEqual(["none", "n/a", "n/a", "n/a"]);
  });
});
