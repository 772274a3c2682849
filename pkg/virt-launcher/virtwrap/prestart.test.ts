import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { IsoFromFilesFunc } from "../../cloud-init/iso.js";
import { silentLogger } from "../../controller/log.js";
import { imageInfo } from "../../ephemeral-disk/qemu-img.js";
import { ensureTools } from "../../ephemeral-disk/testing.js";
import { runnable } from "../../testutils/requirement.js";
import type { QemuIdentity } from "../libvirtd/identity.js";
import {
  configDiskPath,
  ephemeralOverlayPath,
  layoutUnder,
  pvcDiskImagePath,
  type LauncherLayout,
} from "../layout.js";
import { LauncherDomainPreparation } from "./prestart.js";

function vmiWith(volumes: NonNullable<VirtualMachineInstance["spec"]["volumes"]>): VirtualMachineInstance {
  return {
    metadata: { name: "testvmi", namespace: "default", uid: "vmi-uid" },
    spec: { domain: { devices: { disks: volumes.map(({ name }) => ({ name, disk: {} })) } }, volumes },
  };
}

const ephemeralVolume = { name: "eph", ephemeral: { persistentVolumeClaim: { claimName: "base" } } };

describe("LauncherDomainPreparation.beforeDefine", () => {
  let base: string;
  let layout: LauncherLayout;
  let owned: string[];
  let isoCalls: { iso: string; label: string; files: readonly string[] }[];

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), "kvts-prestart-"));
    layout = layoutUnder(base);
    owned = [];
    isoCalls = [];
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  function preparation(blockDevice?: (path: string) => Promise<boolean>) {
    const identity: QemuIdentity = {
      uid: 107,
      gid: 107,
      switchUser: false,
      ownership: {
        setFileOwnership: (path) => {
          owned.push(path);
          return Promise.resolve();
        },
      },
    };
    const configIsoFunc: IsoFromFilesFunc = (iso, label, files) => {
      isoCalls.push({ iso, label, files });
      return writeFile(iso, "");
    };
    return new LauncherDomainPreparation({
      layout,
      identity,
      log: silentLogger,
      startDhcpServer: () => Promise.reject(new Error("no DHCP in this test")),
      configIsoFunc,
      ...(blockDevice ? { blockDevice } : {}),
    });
  }

  it("builds the ISO of a configMap disk, handed to QEMU's user", async () => {
    const source = join(layout.privateDir, "config-map/app-config");
    await mkdir(source, { recursive: true });
    await writeFile(join(source, "app.conf"), "a=1");
    await preparation().beforeDefine(vmiWith([{ name: "app-config", configMap: { name: "app-config" } }]));
    const iso = configDiskPath(layout, "configMap", "app-config");
    expect(isoCalls).toEqual([{ iso, label: "cfgdata", files: [`app.conf=${source}/app.conf`] }]);
    expect(owned).toContain(iso);
  });

  it("reports a config disk whose source is missing", async () => {
    await expect(
      preparation().beforeDefine(vmiWith([{ name: "creds", secret: { secretName: "creds" } }])),
    ).rejects.toThrow(/^creating secret disks failed: /);
  });

  const qemuImg = runnable(
    "the ephemeral volume overlay tests",
    ensureTools(["qemu-img"], ["qemu-utils"]) ? undefined : "qemu-img is missing (qemu-utils)",
  );

  it.runIf(qemuImg)("lays a qcow2 overlay over a Filesystem PVC's raw disk.img", async () => {
    const image = pvcDiskImagePath(layout, "eph");
    await mkdir(dirname(image), { recursive: true });
    await writeFile(image, Buffer.alloc(1024 * 1024));
    await preparation(() => Promise.resolve(false)).beforeDefine(vmiWith([ephemeralVolume]));
    const overlay = ephemeralOverlayPath(layout, "eph");
    expect(await imageInfo(overlay)).toMatchObject({
      format: "qcow2",
      backingFile: image,
      backingFormat: "raw",
      virtualSize: 1024 * 1024,
    });
    expect(owned).toContain(overlay);
    expect((await stat(image)).size).toBe(1024 * 1024);
  });

  it.runIf(qemuImg)("backs the overlay with the device node of a Block PVC", async () => {
    // qemu-img opens the backing file for its size: a missing device fails, naming the node it was given.
    await expect(
      preparation((path) => Promise.resolve(path === "/dev/eph")).beforeDefine(vmiWith([ephemeralVolume])),
    ).rejects.toThrow(/^preparing ephemeral images failed: qemu-img failed .*\/dev\/eph/);
  });
});
