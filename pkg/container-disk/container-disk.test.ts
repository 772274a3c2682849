import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { EphemeralDiskCreator } from "../ephemeral-disk/ephemeral-disk.js";
import { keepOwnership } from "../ephemeral-disk/ownership.js";
import { createQcow2, imageInfo } from "../ephemeral-disk/qemu-img.js";
import { ensureTools } from "../ephemeral-disk/testing.js";
import {
  containerDiskFormats,
  containerDiskVolumes,
  createEphemeralImages,
  diskTargetPathFromLauncherView,
  kernelBootArtifactPathFromLauncherView,
} from "./container-disk.js";
import { runnable } from "../testutils/requirement.js";

const vmi: VirtualMachineInstance = {
  metadata: { name: "v", namespace: "default" },
  spec: {
    domain: { devices: {} },
    volumes: [
      { name: "cloudinit", cloudInitNoCloud: { userData: "x" } },
      { name: "rootdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } },
      { name: "datadisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } },
    ],
  },
};

describe("where the launcher finds containerDisk images", () => {
  it("numbers them by their position in spec.volumes", () => {
    expect([...containerDiskVolumes(vmi)]).toEqual([
      ["rootdisk", 1],
      ["datadisk", 2],
    ]);
    expect(diskTargetPathFromLauncherView("/var/run/kubevirt/container-disks", 1)).toBe(
      "/var/run/kubevirt/container-disks/disk_1.img",
    );
    expect(kernelBootArtifactPathFromLauncherView("/cd", "/boot/vmlinuz")).toBe("/cd/kernel-boot/vmlinuz");
  });

  it("takes the formats virt-handler probed without looking at the files", async () => {
    const formats = await containerDiskFormats(vmi, "/nonexistent", {
      rootdisk: { format: "qcow2" },
      datadisk: { format: "raw" },
    });
    expect([...formats]).toEqual([
      ["rootdisk", "qcow2"],
      ["datadisk", "raw"],
    ]);
  });

  it("says which image is missing", async () => {
    await expect(
      containerDiskFormats(vmi, "/nonexistent", { rootdisk: { format: "qcow2" } }),
    ).rejects.toThrow("no supported file disk found for volume found in: /nonexistent/disk_2.img");
  });
});

const qemuImg = runnable(
  "the containerDisk overlay test",
  ensureTools(["qemu-img"], ["qemu-utils"]) ? undefined : "qemu-img is missing (qemu-utils)",
);

describe.runIf(qemuImg)("containerDisk overlays", () => {
  it("probes each image's format and puts an overlay over it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvts-cd-"));
    await createQcow2(join(dir, "disk_1.img"), 16n * 1024n * 1024n);
    await createQcow2(join(dir, "disk_2.img"), 16n * 1024n * 1024n);
    const formats = await containerDiskFormats(vmi, dir);
    expect(formats.get("rootdisk")).toBe("qcow2");
    const creator = new EphemeralDiskCreator(join(dir, "disk-data"), keepOwnership);
    await createEphemeralImages(vmi, dir, creator, formats);
    expect(await imageInfo(creator.getFilePath("datadisk"))).toMatchObject({
      backingFile: join(dir, "disk_2.img"),
      backingFormat: "qcow2",
    });
  });
});
