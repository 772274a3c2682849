import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IpAllocator, IpamExhaustedError, candidateAddresses } from "./ipam.js";
import { formatIpv4, parseCidr, parseIpv4 } from "./ipv4.js";

describe("candidateAddresses", () => {
  it("starts after the gateway and skips it", () => {
    const order = candidateAddresses(parseCidr("10.244.1.0/24"), undefined).map(formatIpv4);
    expect(order[0]).toBe("10.244.1.2");
    expect(order).toHaveLength(253);
    expect(order).not.toContain("10.244.1.1");
    expect(order).not.toContain("10.244.1.255");
  });

  it("continues round-robin after the last reserved address", () => {
    const order = candidateAddresses(parseCidr("10.244.1.0/24"), parseIpv4("10.244.1.253")).map(formatIpv4);
    expect(order.slice(0, 3)).toEqual(["10.244.1.254", "10.244.1.2", "10.244.1.3"]);
  });
});

describe("IpAllocator", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "kvts-ipam-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("gives each pod its own address and the same one again", async () => {
    const ipam = new IpAllocator("10.244.200.0/24", dir);
    const a = await ipam.allocate("pod-a");
    const b = await ipam.allocate("pod-b");
    expect(a).toBe("10.244.200.2");
    expect(b).toBe("10.244.200.3");
    expect(await ipam.allocate("pod-a")).toBe(a);
  });

  it("persists allocations so a restarted agent finds them", async () => {
    await new IpAllocator("10.244.200.0/24", dir).allocate("pod-a");
    const restarted = new IpAllocator("10.244.200.0/24", dir);
    expect(await restarted.find("pod-a")).toBe("10.244.200.2");
    expect(await restarted.allocate("pod-b")).toBe("10.244.200.3");
  });

  it("does not hand out two addresses when allocations race", async () => {
    const ipam = new IpAllocator("10.244.200.0/24", dir);
    const uids = Array.from({ length: 20 }, (_, i) => `pod-${i}`);
    const addresses = await Promise.all(uids.map((uid) => ipam.allocate(uid)));
    expect(new Set(addresses).size).toBe(uids.length);
  });

  it("frees an address on release and reuses it only after the others", async () => {
    const ipam = new IpAllocator("10.244.200.0/29", dir);
    const first = await ipam.allocate("pod-a");
    await ipam.release("pod-a");
    expect(await ipam.find("pod-a")).toBeUndefined();
    expect(await ipam.allocate("pod-b")).not.toBe(first);
  });

  it("fails clearly when the block is full", async () => {
    const ipam = new IpAllocator("10.244.200.0/30", dir);
    await ipam.allocate("pod-a");
    await expect(ipam.allocate("pod-b")).rejects.toBeInstanceOf(IpamExhaustedError);
  });
});
