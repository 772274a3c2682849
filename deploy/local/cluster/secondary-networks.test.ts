import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  SECONDARY_NETWORKS,
  bridgeNetworkConfig,
  removeSecondaryLeases,
  secondaryLeases,
} from "./secondary-networks.js";

describe("bridgeNetworkConfig", () => {
  it("puts the bridge plugin on the host bridge and host-local on the bridge's subnet", () => {
    expect(JSON.parse(bridgeNetworkConfig("blue", "kvts-sec1"))).toEqual({
      cniVersion: "1.0.0",
      name: "blue",
      type: "bridge",
      bridge: "kvts-sec1",
      ipam: { type: "host-local", ranges: [[{ subnet: "10.245.1.0/24" }]] },
    });
  });

  it("takes a part of the bridge's subnet", () => {
    const config = JSON.parse(bridgeNetworkConfig("red", "kvts-sec2", "10.245.2.128/25")) as {
      ipam: { ranges: unknown };
    };
    expect(config.ipam.ranges).toEqual([[{ subnet: "10.245.2.128/25" }]]);
  });

  it.each([
    [["x", "br0"], /"br0" is not a secondary bridge of the local cluster \(known: kvts-sec1, kvts-sec2\)/],
    [["x", "kvts-sec1", "10.245.2.0/25"], /10.245.2.0\/25 is not a part of kvts-sec1's 10.245.1.0\/24/],
  ])("refuses %j", (args, message) => {
    expect(() => bridgeNetworkConfig(...(args as [string, string, string?]))).toThrow(message);
  });

  it("knows the two bridges and their ranges", () => {
    expect(SECONDARY_NETWORKS).toEqual([
      { bridge: "kvts-sec1", subnet: "10.245.1.0/24" },
      { bridge: "kvts-sec2", subnet: "10.245.2.0/24" },
    ]);
  });
});

describe("the secondary networks' host-local reservations", () => {
  let dir: string;

  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), "kvts-leases-")), "networks");
    // one of the suite's networks, and one of somebody else on the same machine
    await mkdir(join(dir, "blue"), { recursive: true });
    await writeFile(join(dir, "blue", "10.245.1.2"), "uid-a\r\nnet1");
    await writeFile(join(dir, "blue", "10.245.1.3"), "uid-b\r\nnet1");
    await writeFile(join(dir, "blue", "last_reserved_ip.0"), "10.245.1.3");
    await writeFile(join(dir, "blue", "lock"), "");
    await mkdir(join(dir, "other"));
    await writeFile(join(dir, "other", "192.168.5.2"), "uid-c\r\neth1");
    await writeFile(join(dir, "other", "last_reserved_ip.0"), "192.168.5.2");
    await writeFile(join(dir, "other", "lock"), "");
  });

  afterEach(async () => {
    await rm(join(dir, ".."), { recursive: true, force: true });
  });

  it("lists the reservations of the secondary range only", async () => {
    expect(await secondaryLeases(dir)).toEqual([
      join(dir, "blue", "10.245.1.2"),
      join(dir, "blue", "10.245.1.3"),
    ]);
  });

  it("removes them with their network's folder, and leaves anybody else's reservations alone", async () => {
    await removeSecondaryLeases(dir);
    expect(await secondaryLeases(dir)).toEqual([]);
    expect(await readdir(dir)).toEqual(["other"]);
    expect((await readdir(join(dir, "other"))).sort()).toEqual(["192.168.5.2", "last_reserved_ip.0", "lock"]);
  });

  it("removes the folder host-local made once nothing is left in it, and tolerates its absence", async () => {
    await rm(join(dir, "other"), { recursive: true });
    await removeSecondaryLeases(dir);
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
    await expect(removeSecondaryLeases(dir)).resolves.toBeUndefined();
  });
});
