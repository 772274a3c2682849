import { execFile } from "node:child_process";
import { chown, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { loadHostCapabilities } from "./host-capabilities.js";

// The init container's script against this machine's real libvirt and QEMU, read back as the handler
// reads it. `nobody` stands in for the launcher image's qemu user, which the host has not.
const SCRIPT = path.resolve(import.meta.dirname, "../../../cmd/virt-launcher/node-labeller/node-labeller.sh");
const NOBODY = 65534;

describe("node-labeller.sh", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("leaves libvirt's domain capabilities with a host-model CPU, and stops its libvirtd", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "node-labeller-"));
    dirs.push(dir);
    await chown(dir, NOBODY, NOBODY);
    const { stderr } = await promisify(execFile)("bash", [SCRIPT], {
      env: {
        PATH: process.env["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin",
        NODE_LABELLER_DIR: dir,
        QEMU_UID: String(NOBODY),
        HYPERVISOR_DEVICE: "kvm",
        PREFERRED_VIRTTYPE: "kvm",
      },
      timeout: 60_000,
    });
    expect(stderr).toBe("");
    const capabilities = await loadHostCapabilities(dir);
    expect(capabilities.hostCpuModel?.name).toMatch(/\S/);
    expect(capabilities.vendor).toMatch(/\S/);
    expect(capabilities.usableModels.length).toBeGreaterThan(0);
    expect(capabilities.supportedFeatures.length).toBeGreaterThan(0);
    // The script stops the daemon it started: no live libvirtd of the stand-in user is left.
    const { stdout } = await promisify(execFile)("ps", ["-eo", "uid=,stat=,comm="]);
    const alive = stdout
      .split("\n")
      .map((line) => line.trim().split(/\s+/))
      .filter(([uid, stat, comm]) => uid === String(NOBODY) && comm === "libvirtd" && !stat?.startsWith("Z"));
    expect(alive).toEqual([]);
  }, 90_000);
});
