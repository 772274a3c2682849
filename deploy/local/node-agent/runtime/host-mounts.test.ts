import { describe, expect, it } from "vitest";
import { unmountAllUnder } from "./host-mounts.js";
import type { MountEntry } from "./mountinfo.js";

const entry = (mountPoint: string): MountEntry => ({
  id: 1,
  parentId: 0,
  root: "/",
  mountPoint,
  fsType: "tmpfs",
  source: "x",
  superOptions: "rw",
});

/** A mount table where `busy` points refuse a plain umount (a peer holds them) but not a lazy one. */
function fakeMounts(points: string[], busy: Set<string>) {
  const mounted = new Set(points);
  const calls: string[][] = [];
  return {
    calls,
    read: async () => [...mounted].map(entry),
    run: async (_command: string, args: string[]) => {
      calls.push(args);
      const point = args.at(-1) ?? "";
      if (busy.has(point) && !args.includes("--lazy")) throw new Error("target is busy");
      mounted.delete(point);
      return "";
    },
  };
}

describe("unmountAllUnder", () => {
  it("unmounts deepest first with plain umounts when nothing holds them", async () => {
    const mounts = fakeMounts(["/n/root", "/n/root/a", "/other"], new Set());
    await unmountAllUnder("/n/root", mounts.run, mounts.read);
    expect(mounts.calls).toEqual([["/n/root/a"], ["/n/root"]]);
    expect((await mounts.read()).map((e) => e.mountPoint)).toEqual(["/other"]);
  });

  it("detaches a mount a peer keeps busy lazily, after the plain rounds", async () => {
    const mounts = fakeMounts(["/n/root"], new Set(["/n/root"]));
    await unmountAllUnder("/n/root", mounts.run, mounts.read);
    expect(mounts.calls.at(-1)).toEqual(["--lazy", "/n/root"]);
    expect(mounts.calls.filter((args) => !args.includes("--lazy")).length).toBeGreaterThan(0);
    expect(await mounts.read()).toEqual([]);
  });

  it("says what is left when even that fails", async () => {
    const read = async () => [entry("/n/root")];
    const run = async () => {
      throw new Error("no");
    };
    await expect(unmountAllUnder("/n/root", run, read)).rejects.toThrow(
      "mounts still present under /n/root: /n/root",
    );
  });
});
