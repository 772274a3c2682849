import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { ClusterConfig } from "../virt-config/cluster-config.js";
import { LauncherHostDisks } from "./host-disks.js";
import type { PodIsolationDetector } from "./isolation/detector.js";

function vmiWithHostDisk(capacity: string): VirtualMachineInstance {
  return {
    metadata: { name: "testvmi", namespace: "default" },
    spec: {
      domain: { devices: {} },
      volumes: [
        {
          name: "disk0",
          hostDisk: {
            path: "/var/run/kubevirt-private/vmi-disks/disk0/disk.img",
            type: "DiskOrCreate",
            capacity,
          },
        },
      ],
    },
  };
}

describe("LauncherHostDisks", () => {
  let root: string;
  let detected: number;
  const detector: PodIsolationDetector = {
    detect: () => {
      detected++;
      return Promise.resolve({ pid: 42, netnsPath: "/proc/42/ns/net", rootFs: root });
    },
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "kvts-handler-hostdisk-"));
    detected = 0;
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("creates the image in the launcher's root", async () => {
    await mkdir(join(root, "var/run/kubevirt-private/vmi-disks/disk0"), { recursive: true });
    await new LauncherHostDisks({ detector, clusterConfig: () => ClusterConfig.defaults() }).create(
      vmiWithHostDisk("1Mi"),
    );
    expect((await stat(join(root, "var/run/kubevirt-private/vmi-disks/disk0/disk.img"))).size).toBe(
      1024 * 1024,
    );
  });

  it("names the step when it fails", async () => {
    await expect(
      new LauncherHostDisks({ detector, clusterConfig: () => ClusterConfig.defaults() }).create(
        vmiWithHostDisk("1Mi"),
      ),
    ).rejects.toThrow(/^preparing host-disks failed: Resolve diskdir : /);
  });

  it("does not look for the pod of a VMI without hostDisks", async () => {
    const vmi = vmiWithHostDisk("1Mi");
    vmi.spec.volumes = [];
    await new LauncherHostDisks({ detector, clusterConfig: () => ClusterConfig.defaults() }).create(vmi);
    expect(detected).toBe(0);
  });

  it("reports a pod that cannot be found", async () => {
    const missing: PodIsolationDetector = { detect: () => Promise.reject(new Error("no launcher pod")) };
    await expect(
      new LauncherHostDisks({ detector: missing, clusterConfig: () => ClusterConfig.defaults() }).create(
        vmiWithHostDisk("1Mi"),
      ),
    ).rejects.toThrow("failed to detect isolation for launcher pod: no launcher pod");
  });
});
