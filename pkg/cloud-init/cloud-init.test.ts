import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance, Volume } from "../api/generated/v1.js";
import { keepOwnership } from "../ephemeral-disk/ownership.js";
import { ensureTools } from "../ephemeral-disk/testing.js";
import { generateLocalData, isoFilePath, readCloudInitVolumeDataSource, volumeFiles } from "./cloud-init.js";
import { isoCommand, isoFromFilesCommand } from "./iso.js";
import { runnable } from "../testutils/requirement.js";

const FIRMWARE_UUID = "5d307ca9-b3ef-428c-8861-06e72d69f223";

function vmiWith(
  volume: Volume,
  extra: Partial<VirtualMachineInstance["spec"]> = {},
): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "testvmi.example", namespace: "default", uid: "uid-1" },
    spec: {
      domain: { devices: {}, firmware: { uuid: FIRMWARE_UUID } },
      volumes: [{ name: "containerdisk", containerDisk: { image: "x" } }, volume],
      ...extra,
    },
  };
}

const noSecrets = "/nonexistent";

describe("reading the VMI's cloud-init data", () => {
  it("takes NoCloud user and network data inline, with upstream's meta-data", async () => {
    const data = await readCloudInitVolumeDataSource(
      vmiWith({
        name: "cloudinit",
        cloudInitNoCloud: { userData: "#cloud-config\n", networkData: "version: 2\n" },
      }),
      noSecrets,
    );
    expect(data).toEqual({
      dataSource: "noCloud",
      volumeName: "cloudinit",
      userData: "#cloud-config\n",
      networkData: "version: 2\n",
      // instance-id is the firmware UUID; the hostname is the VMI name up to its first dot.
      metaData: { "instance-id": FIRMWARE_UUID, "local-hostname": "testvmi" },
    });
  });

  it("decodes base64 data and prefers spec.hostname", async () => {
    const data = await readCloudInitVolumeDataSource(
      vmiWith(
        {
          name: "cloudinit",
          cloudInitNoCloud: { userDataBase64: Buffer.from("#!/bin/sh\necho hi\n").toString("base64") },
        },
        { hostname: "myhost" },
      ),
      noSecrets,
    );
    expect(data?.userData).toBe("#!/bin/sh\necho hi\n");
    expect(data?.metaData).toMatchObject({ "local-hostname": "myhost" });
  });

  it("names the instance type from the VMI's annotations", async () => {
    const vmi = vmiWith({ name: "cloudinit", cloudInitNoCloud: { userData: "x" } });
    vmi.metadata = { ...vmi.metadata, annotations: { "kubevirt.io/cluster-instancetype-name": "u1.small" } };
    const data = await readCloudInitVolumeDataSource(vmi, noSecrets);
    expect(data?.metaData).toMatchObject({ "instance-type": "u1.small" });
  });

  it("reads secret-backed data from the secret mounted for the volume", async () => {
    const secrets = mkdtempSync(join(tmpdir(), "kvts-secret-"));
    mkdirSync(join(secrets, "cloudinit"));
    writeFileSync(join(secrets, "cloudinit", "userData"), "#cloud-config\nfrom: secret\n");
    writeFileSync(join(secrets, "cloudinit", "networkdata"), "network: from secret\n");
    const data = await readCloudInitVolumeDataSource(
      vmiWith({
        name: "cloudinit",
        cloudInitNoCloud: { secretRef: { name: "s" }, networkDataSecretRef: { name: "s" } },
      }),
      secrets,
    );
    expect(data).toMatchObject({
      userData: "#cloud-config\nfrom: secret\n",
      networkData: "network: from secret\n",
    });
  });

  it("refuses a volume whose secrets are both missing, as upstream words it", async () => {
    const vmi = vmiWith({
      name: "cloudinit",
      cloudInitNoCloud: { secretRef: { name: "s" }, networkDataSecretRef: { name: "s" } },
    });
    await expect(readCloudInitVolumeDataSource(vmi, noSecrets)).rejects.toThrow(
      "no cloud-init data-source found at volume: cloudinit",
    );
  });

  it("refuses a volume with no data at all", async () => {
    await expect(
      readCloudInitVolumeDataSource(vmiWith({ name: "c", cloudInitNoCloud: {} }), noSecrets),
    ).rejects.toThrow(
      "userDataBase64, userData, networkDataBase64 or networkData is required for a cloud-init data source",
    );
  });

  it("builds ConfigDrive meta-data with instance_id <name>.<namespace>", async () => {
    const data = await readCloudInitVolumeDataSource(
      vmiWith({ name: "cd", cloudInitConfigDrive: { userData: "x" } }),
      noSecrets,
    );
    expect(data?.metaData).toEqual({
      instance_id: "testvmi.example.default",
      hostname: "testvmi",
      uuid: FIRMWARE_UUID,
    });
    expect(data && volumeFiles(data)).toEqual({
      volumeID: "config-2",
      files: {
        "openstack/latest/meta_data.json": JSON.stringify(data?.metaData),
        "openstack/latest/user_data": "x",
      },
    });
  });

  it("is undefined for a VMI without cloud-init", async () => {
    const vmi = vmiWith({ name: "empty", emptyDisk: { capacity: "1Gi" } });
    expect(await readCloudInitVolumeDataSource(vmi, noSecrets)).toBeUndefined();
  });
});

describe("the ISO tool", () => {
  it("prefers upstream's xorrisofs and falls back to genisoimage", () => {
    expect(isoCommand("/o.iso", "cidata", "/in", () => true)).toEqual([
      "xorrisofs",
      ["-output", "/o.iso", "-volid", "cidata", "-joliet", "-rock", "-partition_cyl_align", "on", "/in"],
    ]);
    expect(isoCommand("/o.iso", "cidata", "/in", (command) => command === "genisoimage")[0]).toBe(
      "genisoimage",
    );
    expect(() => isoCommand("/o.iso", "cidata", "/in", () => false)).toThrow(/apt-get install xorriso/);
  });

  it("builds a config disk from graft points, following symlinks", () => {
    const common = [
      "-output",
      "/o.iso",
      "-follow-links",
      "-volid",
      "cfgdata",
      "-joliet",
      "-rock",
      "-graft-points",
    ];
    expect(isoFromFilesCommand("/o.iso", "cfgdata", ["a=/src/a"], () => true)).toEqual([
      "xorrisofs",
      [...common, "-partition_cyl_align", "on", "a=/src/a"],
    ]);
    expect(isoFromFilesCommand("/o.iso", "cfgdata", ["a=/src/a"], (c) => c === "genisoimage")).toEqual([
      "genisoimage",
      ["-quiet", ...common, "a=/src/a"],
    ]);
  });
});

// genisoimage brings isoinfo too.
const isoTools = runnable(
  "the NoCloud ISO test",
  ensureTools(["isoinfo", "genisoimage"], ["genisoimage"])
    ? undefined
    : "needs isoinfo and genisoimage (genisoimage)",
);

describe.runIf(isoTools)("the NoCloud ISO", () => {
  it("is labelled cidata and holds meta-data, user-data and network-config, nothing else", async () => {
    const localDir = mkdtempSync(join(tmpdir(), "kvts-cloudinit-"));
    const vmi = vmiWith({
      name: "cloudinit",
      cloudInitNoCloud: { userData: "#cloud-config\nhostname: guest\n", networkData: "version: 2\n" },
    });
    const data = await readCloudInitVolumeDataSource(vmi, noSecrets);
    if (!data) throw new Error("no cloud-init data");
    const iso = await generateLocalData(vmi, data, { localDir, ownership: keepOwnership });
    expect(iso).toBe(isoFilePath(localDir, "noCloud", "testvmi.example", "default"));
    expect(iso).toBe(join(localDir, "default/testvmi.example/noCloud.iso"));

    const pvd = execFileSync("isoinfo", ["-d", "-i", iso], { encoding: "utf8" });
    expect(pvd).toMatch(/^Volume id: cidata$/m);
    expect(pvd).toMatch(/Rock Ridge signatures version/);
    const read = (file: string) =>
      execFileSync("isoinfo", ["-R", "-i", iso, "-x", file], { encoding: "utf8" });
    const listing = execFileSync("isoinfo", ["-R", "-f", "-i", iso], { encoding: "utf8" })
      .trim()
      .split("\n")
      .sort();
    expect(listing).toEqual(["/meta-data", "/network-config", "/user-data"]);
    expect(JSON.parse(read("/meta-data"))).toEqual({
      "instance-id": FIRMWARE_UUID,
      "local-hostname": "testvmi",
    });
    expect(read("/user-data")).toBe("#cloud-config\nhostname: guest\n");
    expect(read("/network-config")).toBe("version: 2\n");
    // The plain-text data does not stay on disk beside the ISO.
    expect(readdirSync(join(localDir, "default/testvmi.example"))).toEqual(["noCloud.iso"]);
  });
});
