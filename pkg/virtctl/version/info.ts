// How virtctl prints version.Info; the version itself is this build's (pkg/version), shared with the server.
import * as version from "../../version/version.js";
export { VersionInfoSchema, type VersionInfo } from "../../version/version.js";
import type { VersionInfo } from "../../version/version.js";

/** This client's version: the same build information every component reports. */
export function clientVersion(): VersionInfo {
  return version.get();
}

/** Go's `%#v` of version.Info, which is how upstream virtctl prints both versions. */
export function formatVersionInfo(info: VersionInfo): string {
  const field = (name: string, value: string) => `${name}:${JSON.stringify(value)}`;
  return (
    "version.Info{" +
    [
      field("GitVersion", info.gitVersion),
      field("GitCommit", info.gitCommit),
      field("GitTreeState", info.gitTreeState),
      field("BuildDate", info.buildDate),
      field("GoVersion", info.goVersion),
      field("Compiler", info.compiler),
      field("Platform", info.platform),
    ].join(", ") +
    "}"
  );
}
