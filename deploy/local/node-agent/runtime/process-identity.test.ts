import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { childrenOf, identify, isAlive, parseStartTicks } from "./process-identity.js";

describe("parseStartTicks", () => {
  it("finds field 22 even when the command name holds spaces and parentheses", () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    const stat = `1234 (odd ) name) ${fields.join(" ")}`;
    expect(parseStartTicks(stat)).toBe(22);
  });

  it("rejects what it cannot read", () => {
    expect(() => parseStartTicks("1 (x) S")).toThrow(/unreadable/);
  });
});

describe("process identity", () => {
  it("recognizes a live process, its children, and notices when it is gone", async () => {
    const child = spawn("/bin/sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    const identity = await identify(child.pid as number);
    expect(identity?.startTicks).toBeGreaterThan(0);
    expect(await isAlive(identity!)).toBe(true);
    expect(await isAlive({ ...identity!, startTicks: identity!.startTicks + 1 })).toBe(false);
    let kids: number[] = [];
    for (let i = 0; i < 50 && kids.length === 0; i++) {
      kids = await childrenOf(child.pid as number);
      if (kids.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(kids).toHaveLength(1);
    for (const pid of kids) process.kill(pid, "SIGKILL");
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(await isAlive(identity!)).toBe(false);
  });
});
