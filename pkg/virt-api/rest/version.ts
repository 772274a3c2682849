// The `version` subresource: upstream's client-go version.Info fields, filled from this build.
// KUBEVIRT_TS_GIT_VERSION / _GIT_COMMIT / _BUILD_DATE are set by the image build.

export interface VersionInfo {
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  /** Upstream names the toolchain field after Go; here it holds the Node.js version. */
  goVersion: string;
  compiler: string;
  platform: string;
}

export function versionInfo(env: NodeJS.ProcessEnv = process.env): VersionInfo {
  return {
    gitVersion: env.KUBEVIRT_TS_GIT_VERSION ?? "v0.0.0-master",
    gitCommit: env.KUBEVIRT_TS_GIT_COMMIT ?? "",
    gitTreeState: env.KUBEVIRT_TS_GIT_TREE_STATE ?? "",
    buildDate: env.KUBEVIRT_TS_BUILD_DATE ?? "1970-01-01T00:00:00Z",
    goVersion: process.version,
    compiler: "node",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}
