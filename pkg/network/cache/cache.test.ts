import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dhcpInterfaceCache, launcherRootFs } from "./dhcpconfig.js";
import { podInterfaceCache } from "./podinterface.js";

describe("network caches", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "kvts-cache-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("writes the launcher's interface config where upstream does, and reads it back", async () => {
    const cache = dhcpInterfaceCache(root, "eth0");
    expect(cache.path).toBe(join(root, "var/run/kubevirt-private/vif-cache-eth0.json"));
    expect(await cache.read()).toBeUndefined();
    await cache.write({ ipamDisabled: false, ip: "10.0.2.2/24", mtu: 1400 });
    expect(await cache.read()).toEqual({ ipamDisabled: false, ip: "10.0.2.2/24", mtu: 1400 });
    expect((await stat(cache.path)).mode & 0o777).toBe(0o644);
    await cache.delete();
    expect(await cache.read()).toBeUndefined();
  });

  it("keeps the pod interface cache per VMI and interface", () => {
    expect(podInterfaceCache("/var/run/kubevirt-private", "uid-1", "default").path).toBe(
      "/var/run/kubevirt-private/network-info-cache/uid-1/default",
    );
    expect(launcherRootFs(1234)).toBe("/proc/1234/root");
  });

  it("refuses a document that does not match its schema", async () => {
    const cache = dhcpInterfaceCache(root, "eth0");
    await cache.write({ ipamDisabled: false });
    await writeFile(cache.path, JSON.stringify({ ip: 7 }));
    await expect(cache.read()).rejects.toThrow();
  });

  it("refuses to write through a symbolic link planted in the pod's filesystem", async () => {
    const outside = join(root, "outside");
    await mkdir(outside);
    const podRoot = join(root, "pod");
    await mkdir(join(podRoot, "var/run"), { recursive: true });
    await symlink(outside, join(podRoot, "var/run/kubevirt-private"));
    await expect(dhcpInterfaceCache(podRoot, "eth0").write({ ipamDisabled: true })).rejects.toThrow(
      "refusing to follow the symbolic link",
    );
    await expect(readFile(join(outside, "vif-cache-eth0.json"))).rejects.toThrow();
  });

  it("refuses to read or replace a cache file that is a symbolic link", async () => {
    await mkdir(join(root, "var/run/kubevirt-private"), { recursive: true });
    await writeFile(join(root, "secret"), JSON.stringify({ ipamDisabled: true }));
    await symlink(join(root, "secret"), join(root, "var/run/kubevirt-private/vif-cache-eth0.json"));
    const cache = dhcpInterfaceCache(root, "eth0");
    await expect(cache.read()).rejects.toThrow("refusing to follow the symbolic link");
    await expect(cache.write({ ipamDisabled: false })).rejects.toThrow(
      "refusing to follow the symbolic link",
    );
  });
});
