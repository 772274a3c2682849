// The command line of hack/build-images and the names it gives images.
import { parseArgs } from "node:util";
import { COMPONENT_BINARIES } from "../../deploy/local/node-agent/runtime/image-store.js";

/** The component images, in build order: one Dockerfile.<component> each at the checkout's root. */
export const COMPONENTS: readonly string[] = Object.keys(COMPONENT_BINARIES);

export const DEFAULT_REGISTRY = "localhost/kubevirt-ts";
export const DEFAULT_TAG = "devel";

export const USAGE = `usage: npx tsx hack/build-images/main.ts [options] [component...]
Builds the component images (${COMPONENTS.join(", ")}) from their Dockerfiles with buildah, on a local
Debian bookworm + Node base, and exports each image's root filesystem for the local node agent.
  --registry R     image names R/<component>:<tag> (default ${DEFAULT_REGISTRY})
  --tag T          image tag (default ${DEFAULT_TAG})
  --version-tag    tag the images with this checkout's version (hack/version.ts), e.g. v0.1.0-<commit>[-dirty]
  --no-export      build only; leave the exported root filesystems as they are
  --no-prune       keep the images and cached layers earlier builds left behind
  --build-ca FILE  a CA bundle npm trusts in the build stage (default: $NODE_EXTRA_CA_CERTS when it names a file)
  --force          rebuild the base image, build without the layer cache, and export again`;

export interface Options {
  registry: string;
  /** Undefined with --version-tag: the tag is the version's. */
  tag: string | undefined;
  components: string[];
  export: boolean;
  prune: boolean;
  buildCa: string | undefined;
  force: boolean;
  help: boolean;
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A reference's path, as the distribution spec allows it (a host with an optional port, then path components). */
const REGISTRY = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
/** A tag, as the distribution spec allows it. */
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        registry: { type: "string", default: DEFAULT_REGISTRY },
        tag: { type: "string" },
        "version-tag": { type: "boolean", default: false },
        "no-export": { type: "boolean", default: false },
        "no-prune": { type: "boolean", default: false },
        "build-ca": { type: "string" },
        force: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const registry = values.registry.replace(/\/+$/, "");
  if (!REGISTRY.test(registry))
    throw new UsageError(`--registry ${JSON.stringify(values.registry)} is no image repository prefix`);
  if (values.tag !== undefined && values["version-tag"])
    throw new UsageError("--tag and --version-tag exclude each other");
  const tag = values["version-tag"] ? undefined : (values.tag ?? DEFAULT_TAG);
  if (tag !== undefined && !TAG.test(tag))
    throw new UsageError(`--tag ${JSON.stringify(tag)} is no image tag`);
  const unknown = positionals.filter((component) => !COMPONENTS.includes(component));
  if (unknown.length > 0) {
    throw new UsageError(`no component image ${unknown.join(", ")} (there are ${COMPONENTS.join(", ")})`);
  }
  const envCa = env["NODE_EXTRA_CA_CERTS"];
  return {
    registry,
    tag,
    // in build order, each once
    components:
      positionals.length > 0
        ? COMPONENTS.filter((component) => positionals.includes(component))
        : [...COMPONENTS],
    export: !values["no-export"],
    prune: !values["no-prune"],
    buildCa: values["build-ca"] ?? (envCa ? envCa : undefined),
    force: values.force,
    help: values.help,
  };
}

export function imageName(registry: string, component: string, tag: string): string {
  return `${registry}/${component}:${tag}`;
}

/**
 * A tag for a version as pkg/version writes it (`v0.1.0+<commit>-dirty`): a tag cannot hold `+`, so the build
 * metadata joins with `-`, as `v0.1.0-<commit>-dirty`; anything else a tag cannot hold becomes `_`.
 */
export function versionTag(gitVersion: string): string {
  const tag = gitVersion
    .replace(/\+/g, "-")
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .replace(/^[.-]/, "_");
  if (tag === "") throw new Error("an empty version gives no tag");
  return tag.slice(0, 128);
}
