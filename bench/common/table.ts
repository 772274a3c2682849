import { spread } from "./stats.js";

// The benchmarks' printed tables: columns as wide as their widest cell, figures aligned on the right,
// a rule under the header and between the other sections (body, sums, targets).

export type Align = "left" | "right";

/**
 * Lines of a table whose first section is the header. `align` gives each column's alignment (missing
 * ones are left-aligned); trailing blanks are cut.
 */
export function formatTable(
  sections: readonly (readonly string[][])[],
  align: readonly Align[] = [],
): string[] {
  const rows = sections.flat();
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? "").length)),
  );
  const render = (row: readonly string[]): string =>
    widths
      .map((width, column) => {
        const cell = row[column] ?? "";
        return align[column] === "right" ? cell.padStart(width) : cell.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  const lines: string[] = [];
  sections.forEach((section, index) => {
    if (index > 0) lines.push(rule);
    lines.push(...section.map(render));
  });
  return lines;
}

/** The usual alignment: `left` columns of names, then figures on the right up to `columns`. */
export function namesThenFigures(left: number, columns: number): Align[] {
  return Array.from({ length: columns }, (_, column) => (column < left ? "left" : "right"));
}

/**
 * A figure's row of a summary over runs: its name, the min / median / max of the values measured (undefined
 * ones left out; "format(undefined)" for all three when none was), then `extra` cells (a target).
 */
export function spreadRow(
  name: string,
  values: readonly (number | undefined)[],
  format: (value: number | undefined) => string,
  ...extra: string[]
): string[] {
  const s = spread(values.filter((value): value is number => value !== undefined));
  return [name, format(s?.min), format(s?.median), format(s?.max), ...extra];
}
