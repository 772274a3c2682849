import { describe, expect, it } from "vitest";
import { formatLoad, formatMachine } from "./machine.js";

describe("machine", () => {
  it("prints the load average to two digits, and the machine's cores and memory", () => {
    expect(formatLoad([0.5, 1.234, 12])).toBe("0.50 1.23 12.00");
    expect(formatMachine(2, 24105 * 2 ** 20)).toBe("2 cores, 23.5 GiB memory");
    expect(formatMachine(1, 2 ** 30)).toBe("1 core, 1.0 GiB memory");
  });
});
