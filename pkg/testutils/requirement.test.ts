import { afterEach, describe, expect, it, vi } from "vitest";
import { runnable } from "./requirement.js";

describe("runnable", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("lets tests run when nothing is missing", () => {
    vi.stubEnv("CI", "true");
    expect(runnable("the ISO tests", undefined)).toBe(true);
  });

  it("skips with the reason printed away from CI", () => {
    vi.stubEnv("CI", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(runnable("the ISO tests", "genisoimage is not installed")).toBe(false);
    expect(warn).toHaveBeenCalledWith("skipping the ISO tests: genisoimage is not installed");
    warn.mockRestore();
  });

  it("fails under CI=true, naming what is missing", () => {
    vi.stubEnv("CI", "true");
    expect(() => runnable("the ISO tests", "genisoimage is not installed")).toThrow(
      /the ISO tests cannot run: genisoimage is not installed/,
    );
  });
});
