import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { IsoFromFilesFunc } from "../cloud-init/iso.js";
import { ensureTools } from "../ephemeral-disk/testing.js";
import { runnable } from "../testutils/requirement.js";
import { layoutUnder, type LauncherLayout } from "../util/launcher-layout.js";
import { createConfigDisks } from "./config-disks.js";

function vmiWith(volumes: NonNullable<VirtualMachineInstance["spec"]["volumes"]>, disks: string[]) {
  const vmi: VirtualMachineInstance = {
    metadata: { name: "testvmi", namespace: "default" },
    spec: { domain: { devices: { disks: disks.map((name) => ({ name, disk: {} })) } }, volumes },
  };
  return vmi;
}

/** A kubelet-style projected volume: the files are symlinks into a timestamped dir. */
async function kubeletVolume(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(join(dir, "..2026_12_03_07_00_00.1"), { recursive: true });
  for (const [name, content] of Object.entries(files))
    await writeFile(join(dir, "..2026_12_03_07_00_00.1", name), content);
  await symlink("..2026_12_03_07_00_00.1", join(dir, "..data"));
  for (const name of Object.keys(files)) await symlink(join("..data", name), join(dir, name));
}

describe("createConfigDisks", () => {
  let base: string;
  let layout: LauncherLayout;
  let calls: { iso: string; label: string; files: readonly string[] }[];
  let owned: string[];
  const fakeIso: IsoFromFilesFunc = (iso, label, files) => {
    calls.push({ iso, label, files });
    return writeFile(iso, "iso");
  };
  const ownership = {
    setFileOwnership: (path: string) => {
      owned.push(path);
      return Promise.resolve();
    },
  };
  const options = () => ({ layout, ownership, isoFunc: fakeIso });

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), "kvts-configdisks-"));
    layout = layoutUnder(base);
    calls = [];
    owned = [];
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("builds one ISO per configMap, secret and downwardAPI disk, with the volume's label or cfgdata", async () => {
    await kubeletVolume(join(base, "private/config-map/app-config"), { "app.conf": "a=1", "b.txt": "b" });
    await kubeletVolume(join(base, "private/secret/creds"), { password: "s3cret" });
    await kubeletVolume(join(base, "private/downwardapi/labels"), { labels: "app=x" });
    const vmi = vmiWith(
      [
        { name: "app-config", configMap: { name: "app-config", volumeLabel: "CONFIG" } },
        { name: "creds", secret: { secretName: "creds" } },
        { name: "labels", downwardAPI: { fields: [] } },
      ],
      ["labels", "creds", "app-config"],
    );
    await createConfigDisks(vmi, options());

    const source = (dir: string) => join(base, "private", dir);
    const stamp = "..2026_12_03_07_00_00.1";
    expect(calls).toEqual([
      {
        iso: join(base, "private/config-map-disks/app-config.iso"),
        label: "CONFIG",
        files: [
          `${stamp}=${source("config-map/app-config")}/${stamp}`,
          `..data=${source("config-map/app-config")}/..data`,
          `app.conf=${source("config-map/app-config")}/app.conf`,
          `b.txt=${source("config-map/app-config")}/b.txt`,
        ],
      },
      {
        iso: join(base, "private/secret-disks/creds.iso"),
        label: "cfgdata",
        files: [
          `${stamp}=${source("secret/creds")}/${stamp}`,
          `..data=${source("secret/creds")}/..data`,
          `password=${source("secret/creds")}/password`,
        ],
      },
      {
        iso: join(base, "private/downwardapi-disks/labels.iso"),
        label: "cfgdata",
        files: [
          `${stamp}=${source("downwardapi/labels")}/${stamp}`,
          `..data=${source("downwardapi/labels")}/..data`,
          `labels=${source("downwardapi/labels")}/labels`,
        ],
      },
    ]);
    expect(owned).toEqual(calls.map((call) => call.iso));
  });

  it("skips config volumes no disk uses", async () => {
    const vmi = vmiWith([{ name: "unused", configMap: { name: "unused" } }], []);
    await createConfigDisks(vmi, options());
    expect(calls).toEqual([]);
  });

  it("names the kind when its source is missing", async () => {
    const vmi = vmiWith([{ name: "creds", secret: { secretName: "creds" } }], ["creds"]);
    await expect(createConfigDisks(vmi, options())).rejects.toThrow(
      /^creating secret disks failed: ENOENT.*private\/secret\/creds/,
    );
  });

  it("reads a serviceAccount volume from the pod's token mount", async () => {
    const vmi = vmiWith([{ name: "sa", serviceAccount: { serviceAccountName: "default" } }], ["sa"]);
    const outcome = await createConfigDisks(vmi, options()).then(
      () => undefined,
      (error: Error) => error.message,
    );
    if (outcome === undefined) {
      // Running inside a pod: the token mount exists.
      expect(calls).toMatchObject([
        { iso: join(base, "private/service-account-disk/service-account.iso"), label: "cfgdata" },
      ]);
    } else {
      expect(outcome).toMatch(
        /^creating service account disk failed: ENOENT.*\/var\/run\/secrets\/kubernetes.io\/serviceaccount/,
      );
    }
  });

  // genisoimage brings isoinfo too.
  const isoTools = runnable(
    "the real config ISO test",
    ensureTools(["genisoimage", "isoinfo"], ["genisoimage"]) ? undefined : "genisoimage is missing",
  );
  it.runIf(isoTools)("makes a real ISO whose files are the volume's, symlinks followed", async () => {
    await kubeletVolume(join(base, "private/config-map/app-config"), { "app.conf": "a=1" });
    const vmi = vmiWith(
      [{ name: "app-config", configMap: { name: "app-config", volumeLabel: "CONFIG" } }],
      ["app-config"],
    );
    await createConfigDisks(vmi, { layout, ownership: { setFileOwnership: () => Promise.resolve() } });
    const iso = join(base, "private/config-map-disks/app-config.iso");
    expect(await readdir(join(base, "private/config-map-disks"))).toEqual(["app-config.iso"]);
    const header = execFileSync("isoinfo", ["-d", "-i", iso], { encoding: "utf8" });
    expect(header).toMatch(/Volume id: CONFIG/);
    const content = execFileSync("isoinfo", ["-R", "-x", "/app.conf", "-i", iso], { encoding: "utf8" });
    expect(content).toBe("a=1");
  });
});
