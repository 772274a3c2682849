// Building the cloud-init volume: an ISO 9660 image with Joliet and Rock Ridge names whose volume
// label tells cloud-init the data source ("cidata" for NoCloud, "config-2" for ConfigDrive).
// Upstream runs xorrisofs; Debian's genisoimage takes the same options except cylinder alignment.
import { execFile, execFileSync } from "node:child_process";
import { rename } from "node:fs/promises";

export type IsoCreationFunc = (isoOutFile: string, volumeID: string, inDir: string) => Promise<void>;

const ISO_TIMEOUT_MS = 10_000;

function hasCommand(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Upstream's xorrisofs when present, else genisoimage. */
function isoTool(available: (command: string) => boolean): "xorrisofs" | "genisoimage" {
  if (available("xorrisofs")) return "xorrisofs";
  if (available("genisoimage")) return "genisoimage";
  throw new Error("neither xorrisofs nor genisoimage is installed (Debian: apt-get install xorriso)");
}

/** `common` options, the tool's own, then the inputs. */
function withTool(
  available: (command: string) => boolean,
  common: readonly string[],
  inputs: readonly string[],
): [string, string[]] {
  const tool = isoTool(available);
  const own = tool === "xorrisofs" ? ["-partition_cyl_align", "on"] : [];
  return tool === "genisoimage"
    ? [tool, ["-quiet", ...common, ...inputs]]
    : [tool, [...common, ...own, ...inputs]];
}

/** The tool and arguments for one ISO of a directory, preferring upstream's xorrisofs. */
export function isoCommand(
  isoOutFile: string,
  volumeID: string,
  inDir: string,
  available: (command: string) => boolean = hasCommand,
): [string, string[]] {
  return withTool(available, ["-output", isoOutFile, "-volid", volumeID, "-joliet", "-rock"], [inDir]);
}

/**
 * Builds an ISO of named files (upstream pkg/config's isoCreationFunc): each graft point is
 * `<name in the ISO>=<path>`. Symlinks are followed: kubelet's configMap and secret volumes are made of them.
 */
export type IsoFromFilesFunc = (
  isoOutFile: string,
  volumeID: string,
  graftPoints: readonly string[],
) => Promise<void>;

export function isoFromFilesCommand(
  isoOutFile: string,
  volumeID: string,
  graftPoints: readonly string[],
  available: (command: string) => boolean = hasCommand,
): [string, string[]] {
  const common = [
    "-output",
    isoOutFile,
    "-follow-links",
    "-volid",
    volumeID,
    "-joliet",
    "-rock",
    "-graft-points",
  ];
  return withTool(available, common, graftPoints);
}

function runIsoTool([command, args]: [string, string[]], isoOutFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: ISO_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const reason = error.killed ? "timed out" : `failed: ${String(stderr).trim() || error.message}`;
      reject(new Error(`${command} ${reason} while generating iso file ${isoOutFile}`));
    });
  });
}

export const defaultIsoFunc: IsoCreationFunc = (isoOutFile, volumeID, inDir) =>
  runIsoTool(isoCommand(isoOutFile, volumeID, inDir), isoOutFile);

/** Written to `<iso>.staging` and renamed, so QEMU never opens a half-written image. */
export const defaultIsoFromFilesFunc: IsoFromFilesFunc = async (isoOutFile, volumeID, graftPoints) => {
  const staging = `${isoOutFile}.staging`;
  await runIsoTool(isoFromFilesCommand(staging, volumeID, graftPoints), isoOutFile);
  await rename(staging, isoOutFile);
};
