import { describe, expect, it } from "vitest";
import { CommandError, NsenterExec, runCommand } from "./netns-exec.js";

describe("running network tools in a namespace", () => {
  it("refuses a relative namespace path", () => {
    expect(() => new NsenterExec("run/netns/x")).toThrow("must be absolute");
  });

  it("refuses the caller's own network namespace", async () => {
    // A harmless command: were the guard missing, the test fails without touching anything.
    const exec = new NsenterExec("/proc/self/ns/net");
    await expect(exec.change("true", [])).rejects.toThrow("is the caller's own network namespace");
  });

  it("reports a failed command with its stderr", async () => {
    const failure = runCommand("sh", ["-c", "echo broken >&2; exit 3"]);
    await expect(failure).rejects.toBeInstanceOf(CommandError);
    await expect(failure).rejects.toThrow("failed (exit 3): broken");
  });

  it("feeds stdin to the command", async () => {
    expect(await runCommand("cat", [], "to stdin")).toBe("to stdin");
  });
});
