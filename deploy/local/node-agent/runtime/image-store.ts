import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  BUILD_BUNDLES_HINT,
  BUNDLE_NODE_FLAGS,
  bundleFile,
  bundleSource,
} from "../../../../hack/bundle-components/layout.js";
import { ensureBinaryImage } from "./binary-image.js";
import { ensureBusyboxImage } from "./busybox-image.js";
import type { ExecutableFile } from "./container-root.js";
import { formatImageReference, imageBaseName, parseImageReference, repositoryOf } from "./image-reference.js";
import type { ImageReference } from "./image-reference.js";
import { ensureNativeBinary } from "./native-binary.js";
import { shellQuote } from "./shell.js";

// The local image store: what an image name means on this machine, since nothing is pulled from a registry.
// The table below is the one place that maps names to local images. Component images of this suite run
// this checkout's compiled binaries (cmd/<binary>/main.ts bundled into dist/components/bin/<binary>.mjs by
// `make binaries`, see hack/bundle-components) with node on the host's files, with a wrapper at
// /usr/bin/<binary> for each binary the upstream image holds, so the pod spec's command works as written.
// Nothing transpiles TypeScript at run time: a binary whose bundle is missing fails to start, saying so.
// busybox is the host's static busybox; the test guest's images are directories built by deploy/local/guest; CoreDNS
// and local-path-provisioner are static binaries deploy/local/build-binaries.sh builds from their Go modules, each
// alone in its image where upstream's image has it.

/** Binaries each upstream component image ships, by image name. */
export const COMPONENT_BINARIES: Readonly<Record<string, readonly string[]>> = {
  "virt-operator": ["virt-operator"],
  "virt-api": ["virt-api"],
  "virt-controller": ["virt-controller"],
  "virt-handler": ["virt-handler", "virt-chroot"],
  "virt-launcher": [
    "virt-launcher",
    "virt-launcher-monitor",
    "virt-tail",
    "virt-freezer",
    "virt-probe",
    "container-disk",
  ],
};

/**
 * Binaries built from cmd/<binary>/main.c rather than bundled from TypeScript: container-disk runs where no node
 * exists; virt-tail (tails a file) and virt-launcher-monitor (starts, signals and reaps virt-launcher) run in
 * every launcher Pod, where a Node process of their own would cost ~40 MiB each.
 */
export const NATIVE_BINARIES: ReadonlySet<string> = new Set([
  "container-disk",
  "virt-tail",
  "virt-launcher-monitor",
]);

/** Scripts an upstream component image ships, by image name: the path in the image and its file here. */
export const COMPONENT_SCRIPTS: Readonly<Record<string, ReadonlyArray<{ path: string; file: string }>>> = {
  "virt-launcher": [
    { path: "/usr/bin/node-labeller.sh", file: "cmd/virt-launcher/node-labeller/node-labeller.sh" },
  ],
};

/** Users an upstream component image has beyond the host's (the launcher's `qemu`, uid 107). */
const COMPONENT_USERS: Readonly<Record<string, readonly { name: string; id: number }[]>> = {
  "virt-launcher": [{ name: "qemu", id: 107 }],
};

/**
 * Configuration files an upstream component image carries. The launcher's: virsh (Debian's
 * libvirt-clients, on the host's files the image runs on) is pointed at the launcher's private libvirtd,
 * whose socket is libvirt-sock under the pod's /var/run (pkg/virt-launcher/layout.ts), with the URI the
 * launcher itself opens (qemu:///session): `virsh list` / `virsh dumpxml 1` in the compute container
 * then show that VM's domain, as they do in upstream's image. libvirt's client reads this file when run
 * as root; as the non-root qemu user it finds the same socket through XDG_RUNTIME_DIR=/var/run, which
 * the compute container's environment sets.
 */
const COMPONENT_CONFIG_FILES: Readonly<Record<string, readonly ExecutableFile[]>> = {
  "virt-launcher": [
    {
      path: "/etc/libvirt/libvirt.conf",
      content: 'uri_default = "qemu+unix:///session?socket=/var/run/libvirt/libvirt-sock"\n',
      mode: 0o644,
    },
  ],
};

/** The host's /etc/passwd and /etc/group with the image's own users added, as the image would ship them. */
async function accountFiles(component: string): Promise<ExecutableFile[]> {
  const users = COMPONENT_USERS[component] ?? [];
  if (users.length === 0) return [];
  const [passwd, group] = await Promise.all([
    readFile("/etc/passwd", "utf8").catch(() => ""),
    readFile("/etc/group", "utf8").catch(() => ""),
  ]);
  const withLines = (text: string, lines: string[]) =>
    [...text.split("\n").filter((line) => line !== ""), ...lines].join("\n") + "\n";
  const hasId = (text: string, id: number) =>
    text.split("\n").some((line) => line.split(":")[2] === String(id));
  const newUsers = users.filter((user) => !hasId(passwd, user.id));
  const newGroups = users.filter((user) => !hasId(group, user.id));
  return [
    {
      path: "/etc/passwd",
      content: withLines(
        passwd,
        newUsers.map((u) => `${u.name}:x:${u.id}:${u.id}:${u.name}:/home/${u.name}:/bin/sh`),
      ),
      mode: 0o644,
    },
    {
      path: "/etc/group",
      content: withLines(
        group,
        newGroups.map((u) => `${u.name}:x:${u.id}:`),
      ),
      mode: 0o644,
    },
  ];
}

export type LocalImage =
  | { kind: "component"; component: string }
  | { kind: "busybox" }
  /** A directory under <cacheDir>/images/<name>, run chrooted. */
  | { kind: "directory"; name: string; buildHint: string }
  /** The static binary <cacheDir>/bin/<name> at `at` of an otherwise empty root, run chrooted. */
  | { kind: "binary"; name: string; at: string; buildHint: string };

interface ImageRule {
  matches(reference: ImageReference): boolean;
  image: LocalImage;
}

/**
 * The test guest (deploy/local/guest) in its personalities, one image folder each: the default one
 * (a login-free root shell) for this suite's own image, and stand-ins for upstream's demo
 * containerDisks that log in, prompt and answer (ssh, guest agent) the way those images do, so
 * upstream's examples and console helpers work unchanged.
 */
function testGuest(name: string): LocalImage {
  return { kind: "directory", name, buildHint: "build it with deploy/local/guest/build-test-guest.sh" };
}
const UPSTREAM_DEMO_REGISTRIES = ["quay.io/kubevirt", "registry:5000/kubevirt"];
const TEST_GUEST_IMAGES: ReadonlyArray<{ repositories: readonly string[]; image: LocalImage }> = [
  { repositories: ["docker.io/kubevirt-ts/test-guest"], image: testGuest("test-guest") },
  ...[
    { demo: "cirros-container-disk-demo", personality: "cirros" },
    { demo: "alpine-container-disk-demo", personality: "alpine" },
    { demo: "alpine-with-test-tooling-container-disk", personality: "alpine-with-test-tooling" },
    { demo: "fedora-with-test-tooling-container-disk", personality: "fedora" },
  ].map(({ demo, personality }) => ({
    repositories: UPSTREAM_DEMO_REGISTRIES.map((registry) => `${registry}/${demo}`),
    image: testGuest(`test-guest-${personality}`),
  })),
];

const BUILD_BINARIES_HINT = "build it with deploy/local/build-binaries.sh";
const COREDNS: LocalImage = {
  kind: "binary",
  name: "coredns",
  at: "/coredns",
  buildHint: BUILD_BINARIES_HINT,
};
/** Where upstream publishes CoreDNS: kubeadm's registry.k8s.io/coredns/coredns and CoreDNS' own. */
const COREDNS_REPOSITORIES = ["registry.k8s.io/coredns/coredns", "docker.io/coredns/coredns"];
/** Rancher's image copies the binary to /usr/bin, and its manifest runs it by bare name. */
const LOCAL_PATH_PROVISIONER: LocalImage = {
  kind: "binary",
  name: "local-path-provisioner",
  at: "/usr/bin/local-path-provisioner",
  buildHint: BUILD_BINARIES_HINT,
};
const LOCAL_PATH_PROVISIONER_REPOSITORY = "docker.io/rancher/local-path-provisioner";

export const IMAGE_RULES: readonly ImageRule[] = [
  ...Object.keys(COMPONENT_BINARIES).map((component) => ({
    matches: (reference: ImageReference) => imageBaseName(reference) === component,
    image: { kind: "component", component } as const,
  })),
  { matches: (reference) => imageBaseName(reference) === "busybox", image: { kind: "busybox" } },
  ...TEST_GUEST_IMAGES.map(({ repositories, image }) => ({
    matches: (reference: ImageReference) => repositories.includes(repositoryOf(reference)),
    image,
  })),
  { matches: (reference) => COREDNS_REPOSITORIES.includes(repositoryOf(reference)), image: COREDNS },
  {
    matches: (reference) => repositoryOf(reference) === LOCAL_PATH_PROVISIONER_REPOSITORY,
    image: LOCAL_PATH_PROVISIONER,
  },
];

export function matchLocalImage(reference: ImageReference): LocalImage | undefined {
  return IMAGE_RULES.find((rule) => rule.matches(reference))?.image;
}

export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface ResolvedImage {
  /** As the pod spec names it. */
  image: string;
  /** Normalized, e.g. docker.io/library/busybox:latest. */
  reference: string;
  imageID: string;
  rootfs: { kind: "host" } | { kind: "directory"; path: string };
  /** The image's ENTRYPOINT and CMD, used when the pod spec leaves command/args out. */
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  workingDir: string;
  /** The image's USER (`user[:group]`), used when the pod sets no runAsUser; "" for root. */
  user?: string;
  /** Files the image holds on top of its root (wrappers of component binaries). */
  executables: ExecutableFile[];
  /** For wrappers: the file each one runs, so a missing one fails the start clearly. */
  entryPoints: Record<string, EntryPoint>;
}

/** The file a wrapper of a component image runs, and what to do when it is missing. */
export interface EntryPoint {
  file: string;
  missing: string;
}

/** Why an image cannot be used, worded as kubelet shows containerd's pull errors. */
export class LocalImagePullError extends Error {
  override readonly name = "LocalImagePullError";
}

export interface ImageStoreOptions {
  /** Default `${XDG_CACHE_HOME:-~/.cache}/kubevirt-ts`. */
  cacheDir?: string;
  /** The checkout whose bundled cmd/<binary>/main.ts component images run; default: this checkout. */
  checkoutDir?: string;
  /** The host's static busybox. */
  busyboxBinary?: string;
  /**
   * What component images run: "built" runs the root filesystem `make images` (hack/build-images) exported from
   * the image built from its Dockerfile; "checkout" runs this checkout's bundles on the host's files (the
   * runtime's own tests). Default "checkout".
   */
  componentImages?: ComponentImages;
}

export type ComponentImages = "built" | "checkout";

/** Where hack/build-images exports a component image: a symlink to `<export>/{rootfs,config.json}`. */
export function builtComponentDir(cacheDir: string, component: string): string {
  return path.join(cacheDir, "images", "components", component);
}

/** config.json beside an exported root filesystem (hack/build-images/export.ts writes it). */
const ExportRecordSchema = z.object({
  imageID: z.string().regex(/^[0-9a-f]{64}$/),
  config: z.object({
    Entrypoint: z.array(z.string()).nullish(),
    Cmd: z.array(z.string()).nullish(),
    User: z.string().nullish(),
    Env: z.array(z.string()).nullish(),
    WorkingDir: z.string().nullish(),
  }),
});

export function defaultCacheDir(): string {
  const base = process.env["XDG_CACHE_HOME"] || path.join(os.homedir(), ".cache");
  return path.join(base, "kubevirt-ts");
}

const THIS_CHECKOUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

function notFound(reference: string, detail: string): LocalImagePullError {
  return new LocalImagePullError(
    `rpc error: code = NotFound desc = failed to pull and unpack image "${reference}": ${detail}`,
  );
}

export class ImageStore {
  readonly cacheDir: string;
  readonly checkoutDir: string;
  private readonly busyboxBinary: string;
  readonly componentImages: ComponentImages;

  constructor(options: ImageStoreOptions = {}) {
    this.cacheDir = options.cacheDir ?? defaultCacheDir();
    this.checkoutDir = options.checkoutDir ?? THIS_CHECKOUT;
    this.busyboxBinary = options.busyboxBinary ?? "/bin/busybox";
    this.componentImages = options.componentImages ?? "checkout";
  }

  imageDir(name: string): string {
    return path.join(this.cacheDir, "images", name);
  }

  /** Resolves an image name to what runs, or throws LocalImagePullError with kubelet's wording. */
  async pull(image: string): Promise<ResolvedImage> {
    let parsed: ImageReference;
    try {
      parsed = parseImageReference(image);
    } catch (error) {
      throw new LocalImagePullError((error as Error).message);
    }
    const reference = formatImageReference(parsed);
    const local = matchLocalImage(parsed);
    if (!local) {
      throw notFound(
        reference,
        `failed to resolve reference "${reference}": ${reference}: not found in the kubevirt-ts local image store ` +
          "(it holds this suite's component images, busybox, coredns, rancher/local-path-provisioner, kubevirt-ts/test-guest and its stand-ins " +
          "for upstream's cirros, alpine and fedora demo containerDisks)",
      );
    }
    const base = { image, reference, imageID: imageIdOf(repositoryOf(parsed), local) };
    switch (local.kind) {
      case "component":
        return this.componentImages === "built"
          ? { ...base, ...(await this.builtComponent(local.component, reference, repositoryOf(parsed))) }
          : { ...base, ...(await this.component(local.component)) };
      case "busybox":
        return { ...base, ...(await this.busybox(reference)) };
      case "directory":
        return { ...base, ...(await this.directory(reference, local)) };
      case "binary":
        return { ...base, ...(await this.binary(reference, local)) };
    }
  }

  private async component(
    component: string,
  ): Promise<Omit<ResolvedImage, "image" | "reference" | "imageID">> {
    const binaries = COMPONENT_BINARIES[component] ?? [];
    const entryPoints: Record<string, EntryPoint> = {};
    const native = await Promise.all(
      binaries
        .filter((binary) => NATIVE_BINARIES.has(binary))
        .map(async (binary) => ({
          path: `/usr/bin/${binary}`,
          source: await ensureNativeBinary(path.join(this.checkoutDir, "cmd", binary, "main.c"), {
            binDir: path.join(this.cacheDir, "bin"),
          }),
        })),
    );
    const scripts = binaries
      .filter((binary) => !NATIVE_BINARIES.has(binary))
      .map((binary) => {
        const wrapper = `/usr/bin/${binary}`;
        const file = bundleFile(this.checkoutDir, binary);
        const source = bundleSource(this.checkoutDir, binary);
        entryPoints[wrapper] = {
          file,
          missing: existsSync(source)
            ? `${BUILD_BUNDLES_HINT} from ${path.relative(this.checkoutDir, source)}`
            : `this checkout has no ${path.relative(this.checkoutDir, source)} to build it from`,
        };
        const exec = [process.execPath, ...BUNDLE_NODE_FLAGS, file].map(shellQuote).join(" ");
        return { path: wrapper, content: `#!/bin/sh\nexec ${exec} "$@"\n` };
      });
    const shipped = (COMPONENT_SCRIPTS[component] ?? []).map((script) => ({
      path: script.path,
      source: path.join(this.checkoutDir, script.file),
    }));
    const executables: ExecutableFile[] = [...scripts, ...native, ...shipped];
    return {
      rootfs: { kind: "host" },
      entrypoint: [`/usr/bin/${component}`],
      cmd: [],
      env: { PATH: DEFAULT_PATH },
      workingDir: "/",
      executables: [
        ...executables,
        ...(await accountFiles(component)),
        ...(COMPONENT_CONFIG_FILES[component] ?? []),
      ],
      entryPoints,
    };
  }

  /** A component image as built from its Dockerfile: its exported root filesystem and its config's run fields. */
  private async builtComponent(
    component: string,
    reference: string,
    repository: string,
  ): Promise<Omit<ResolvedImage, "image" | "reference">> {
    const link = builtComponentDir(this.cacheDir, component);
    const hint = `build it from Dockerfile.${component} with "make images" (hack/build-images)`;
    const dir = await realpath(link).catch(() => undefined);
    if (dir === undefined) throw notFound(reference, `${link} does not exist: ${hint}`);
    const recordFile = path.join(dir, "config.json");
    const unreadable = (why: string) => notFound(reference, `${recordFile} is unreadable (${why}): ${hint}`);
    let json: unknown;
    try {
      json = JSON.parse(await readFile(recordFile, "utf8"));
    } catch (error) {
      throw unreadable((error as Error).message);
    }
    const parsed = ExportRecordSchema.safeParse(json);
    if (!parsed.success) {
      throw unreadable(
        parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
      );
    }
    const record = parsed.data;
    const { config } = record;
    const env = Object.fromEntries(
      (config.Env ?? []).map((entry) => [
        entry.slice(0, Math.max(0, entry.indexOf("="))),
        entry.slice(entry.indexOf("=") + 1),
      ]),
    );
    return {
      imageID: `${repository}@sha256:${record.imageID}`,
      rootfs: { kind: "directory", path: path.join(dir, "rootfs") },
      entrypoint: config.Entrypoint ?? [],
      cmd: config.Cmd ?? [],
      env: { PATH: DEFAULT_PATH, ...env },
      workingDir: config.WorkingDir || "/",
      user: config.User ?? "",
      executables: [],
      entryPoints: {},
    };
  }

  private async busybox(reference: string): Promise<Omit<ResolvedImage, "image" | "reference" | "imageID">> {
    if (!(await stat(this.busyboxBinary).catch(() => undefined))) {
      throw notFound(
        reference,
        `${this.busyboxBinary} is missing: install the Debian package busybox-static`,
      );
    }
    let dir: string;
    try {
      dir = await ensureBusyboxImage(this.imageDir("busybox"), this.busyboxBinary);
    } catch (error) {
      throw notFound(reference, (error as Error).message);
    }
    return directoryImage(dir, ["sh"]);
  }

  private async directory(
    reference: string,
    local: Extract<LocalImage, { kind: "directory" }>,
  ): Promise<Omit<ResolvedImage, "image" | "reference" | "imageID">> {
    const dir = this.imageDir(local.name);
    if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
      throw notFound(reference, `the local image directory ${dir} does not exist; ${local.buildHint}`);
    }
    return directoryImage(dir, []);
  }

  private async binary(
    reference: string,
    local: Extract<LocalImage, { kind: "binary" }>,
  ): Promise<Omit<ResolvedImage, "image" | "reference" | "imageID">> {
    const binary = path.join(this.cacheDir, "bin", local.name);
    if (!(await stat(binary).catch(() => undefined))?.isFile()) {
      throw notFound(reference, `${binary} does not exist; ${local.buildHint}`);
    }
    let dir: string;
    try {
      dir = await ensureBinaryImage(this.imageDir(local.name), binary, local.at);
    } catch (error) {
      throw notFound(reference, (error as Error).message);
    }
    return { ...directoryImage(dir, []), entrypoint: [local.at] };
  }
}

function directoryImage(dir: string, cmd: string[]): Omit<ResolvedImage, "image" | "reference" | "imageID"> {
  return {
    rootfs: { kind: "directory", path: dir },
    entrypoint: [],
    cmd,
    env: { PATH: DEFAULT_PATH },
    workingDir: "/",
    executables: [],
    entryPoints: {},
  };
}

function imageIdOf(repository: string, local: LocalImage): string {
  const digest = createHash("sha256").update(JSON.stringify(local)).digest("hex");
  return `${repository}@sha256:${digest}`;
}
