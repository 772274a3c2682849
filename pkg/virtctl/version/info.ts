// Version information in the shape of upstream's version.Info (JSON keys as virt-api serves them).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

export const VersionInfoSchema = z.looseObject({
  gitVersion: z.string().default(""),
  gitCommit: z.string().default(""),
  gitTreeState: z.string().default(""),
  buildDate: z.string().default(""),
  goVersion: z.string().default(""),
  compiler: z.string().default(""),
  platform: z.string().default(""),
});
export type VersionInfo = z.infer<typeof VersionInfoSchema>;

const PackageSchema = z.looseObject({ name: z.string(), version: z.string() });
const GO_ARCH: Record<string, string> = { x64: "amd64", ia32: "386", arm64: "arm64", arm: "arm" };

/** This client's version: the package's version; the runtime fills the fields Go fills with its own. */
export function clientVersion(): VersionInfo {
  return {
    gitVersion: `v${packageVersion()}`,
    gitCommit: "",
    gitTreeState: "",
    buildDate: "",
    goVersion: process.version,
    compiler: "node",
    platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
  };
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

// Searched upwards because this module runs both from the source tree and from dist/.
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const parsed = PackageSchema.safeParse(JSON.parse(readFileSync(candidate, "utf8")));
      if (parsed.success && parsed.data.name === "kubevirt-ts") return parsed.data.version;
    }
    const parent = dirname(dir);
    if (parent === dir) return "0.0.0";
    dir = parent;
  }
}
