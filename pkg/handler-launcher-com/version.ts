// Protocol versions (upstream handler-launcher-com common.go and cmd/v1, notify/v1 version.go):
// each side lists the versions it speaks and both use the highest one they share.

export const CMD_VERSION = 1;
export const NOTIFY_VERSION = 1;

export function highestCompatibleVersion(
  serverVersions: readonly number[],
  clientVersions: readonly number[],
): number {
  const shared = [...serverVersions]
    .sort((a, b) => b - a)
    .find((version) => clientVersions.includes(version));
  if (shared === undefined) {
    throw new Error(
      `no compatible version found, server: [${serverVersions.join(" ")}], client: [${clientVersions.join(" ")}]`,
    );
  }
  return shared;
}
