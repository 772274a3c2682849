// Makes cloud-init volumes the way KubeVirt's virt-launcher does: an ISO 9660 image (Joliet + Rock
// Ridge) labelled "cidata" for cloudInitNoCloud, or "config-2" for cloudInitConfigDrive.
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

export interface CloudInitData {
  metaData: string;
  userData: string;
}

export interface CloudInitVolume {
  label: "cidata" | "config-2";
  /** Path inside the volume -> content. */
  files: Record<string, string>;
}

export function noCloudVolume(data: CloudInitData): CloudInitVolume {
  return { label: "cidata", files: { "meta-data": data.metaData, "user-data": data.userData } };
}

export function configDriveVolume(data: CloudInitData): CloudInitVolume {
  return {
    label: "config-2",
    files: { "openstack/latest/meta_data.json": data.metaData, "openstack/latest/user_data": data.userData },
  };
}

/** Writes `<dir>/<label>.iso` (needs genisoimage) and returns its path. */
export async function makeCloudInitIso(dir: string, volume: CloudInitVolume): Promise<string> {
  const staging = path.join(dir, `${volume.label}-files`);
  for (const [name, content] of Object.entries(volume.files)) {
    await mkdir(path.dirname(path.join(staging, name)), { recursive: true });
    await writeFile(path.join(staging, name), content);
  }
  const iso = path.join(dir, `${volume.label}.iso`);
  const args = ["-quiet", "-output", iso, "-volid", volume.label, "-joliet", "-rock", staging];
  await promisify(execFile)("genisoimage", args);
  return iso;
}
