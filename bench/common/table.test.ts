import { describe, expect, it } from "vitest";
import { formatTable, namesThenFigures } from "./table.js";

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
});
