// Rules for cloud-init volumes (part of upstream's validateVolumes): at most one source each for user
// data and network data, at least one of them, valid base64, and inline data within 2 KiB (larger data
// belongs in a Secret, since every edit of the object is distributed to many nodes).
import type { Volume } from "../../../../api/generated/v1.js";
import { invalidCause, type Path, type StatusCause } from "../../../../api/causes.js";

const CLOUD_INIT_USER_MAX_LENGTH = 2048;
const CLOUD_INIT_NETWORK_MAX_LENGTH = 2048;

interface DataSources {
  secretRefName: string | undefined;
  base64: string | undefined;
  plain: string | undefined;
}

/** Go's base64.StdEncoding.DecodeString: padded standard alphabet, CR/LF ignored; undefined when invalid. */
function decodedLength(text: string): number | undefined {
  const compact = text.replace(/[\r\n]/g, "");
  if (!/^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) return undefined;
  return Buffer.from(compact, "base64").length;
}

function validateDataSources(
  sourcePath: Path,
  sourceName: string,
  kind: "user" | "network",
  sources: DataSources,
): { causes: StatusCause[]; count: number } {
  const causes: StatusCause[] = [];
  let count = 0;
  let length = 0;
  if ((sources.secretRefName ?? "") !== "") count++;
  const base64 = sources.base64 ?? "";
  if (base64 !== "") {
    count++;
    const member = kind === "user" ? "userDataBase64" : "networkDataBase64";
    const decoded = decodedLength(base64);
    if (decoded === undefined) {
      // Upstream prints the data source twice.
      const at = sourcePath.child(member);
      causes.push(invalidCause(`${at.toString()}.${sourceName}.${member} is not a valid base64 value.`, at));
    }
    length = decoded ?? 0;
  }
  const plain = sources.plain ?? "";
  if (plain !== "") {
    count++;
    length = Buffer.byteLength(plain, "utf8");
  }
  const source = sourcePath.toString();
  if (count > 1) {
    const what = kind === "user" ? "userdatasource" : "networkdata source";
    causes.push(invalidCause(`${source} must have only one ${what} set.`, sourcePath));
  }
  const maxLength = kind === "user" ? CLOUD_INIT_USER_MAX_LENGTH : CLOUD_INIT_NETWORK_MAX_LENGTH;
  if (length > maxLength) {
    const message =
      kind === "user"
        ? `${source} userdata exceeds ${maxLength} byte limit. Should use UserDataSecretRef for larger data.`
        : `${source} networkdata exceeds ${maxLength} byte limit. Should use NetworkDataSecretRef for larger data.`;
    causes.push(invalidCause(message, sourcePath));
  }
  return { causes, count };
}

/** `volumePath` is `spec.volumes[i]`. */
export function validateCloudInitVolume(volumePath: Path, volume: Volume): StatusCause[] {
  const sourceName = volume.cloudInitNoCloud !== undefined ? "cloudInitNoCloud" : "cloudInitConfigDrive";
  const source = volume.cloudInitNoCloud ?? volume.cloudInitConfigDrive;
  if (source === undefined) return [];
  const sourcePath = volumePath.child(sourceName);
  const user = validateDataSources(sourcePath, sourceName, "user", {
    secretRefName: source.secretRef?.name,
    base64: source.userDataBase64,
    plain: source.userData,
  });
  const network = validateDataSources(sourcePath, sourceName, "network", {
    secretRefName: source.networkDataSecretRef?.name,
    base64: source.networkDataBase64,
    plain: source.networkData,
  });
  const causes = [...user.causes, ...network.causes];
  if (user.count === 0 && network.count === 0) {
    causes.push(
      invalidCause(
        `${sourcePath.toString()} must have at least one userdatasource or one networkdatasource set.`,
        sourcePath,
      ),
    );
  }
  return causes;
}
