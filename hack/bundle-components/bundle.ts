// Compiles the TypeScript component binaries (cmd/<binary>/main.ts of every binary a component image ships, see
// COMPONENT_BINARIES) into one bundled ESM file each with esbuild: platform node, target node20, production
// dependencies bundled, a source map beside each. Processes then start without tsx: no transpiling on every
// start and no esbuild helper process beside each of them.
//
// Data files. A bundle is one file, so `import.meta.url` would name the bundle in every module it holds. Each
// module that uses import.meta has it rewritten to the URL its source would have in the bundle folder (the
// folder mirrors the checkout: dist/components/pkg/version/version.ts for pkg/version/version.ts), and the files
// such modules read beside themselves (MODULE_DATA_FILES) are copied there. The lookups in pkg/ stay as they
// are, and the folder is self-contained.
//
// Cache. Each bundle's stamp records the files esbuild read for it (sources, node_modules files, tsconfig)
// with a hash over their contents, the esbuild version, the build options and this builder's own sources;
// a bundle is rebuilt only when that hash changes. Outputs are replaced by rename, so a process starting
// during a build reads the old bundle or the new one, never half of one.
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, version as esbuildVersion, type BuildOptions, type Plugin } from "esbuild";
import { COMPONENT_BINARIES, NATIVE_BINARIES } from "../../deploy/local/node-agent/runtime/image-store.js";
import { PROTO_FILES } from "../../pkg/handler-launcher-com/proto.js";
import { ADDENDA_DIR, SWAGGER_PATH } from "../../pkg/virt-operator/util/swagger.js";
import { VERSION_FILE } from "../../pkg/version/version.js";
import { BUNDLE_BIN_DIR, BUNDLE_DIR, bundleFile, bundleSource } from "./layout.js";

/** The binaries component images ship that are written in TypeScript (the others are built from C). */
export function typescriptBinaries(): string[] {
  return [...new Set(Object.values(COMPONENT_BINARIES).flat())].filter(
    (binary) => !NATIVE_BINARIES.has(binary),
  );
}

/**
 * The command-line clients a user runs, bundled beside the components so that they start without tsx
 * transpiling their whole module graph on every call (the e2e suite calls virtctl hundreds of times); no image
 * ships them, as upstream ships virtctl on its own.
 */
export const CLIENT_BINARIES: readonly string[] = ["virtctl"];

/** What `make binaries` bundles: the images' TypeScript binaries and the clients. */
export function bundledBinaries(): string[] {
  return [...typescriptBinaries(), ...CLIENT_BINARIES];
}

/**
 * What each module that uses import.meta reads beside itself at run time, as paths relative to the checkout
 * (a folder: every file in it). A module of a bundle that uses import.meta and is not listed here fails the
 * build's test (bundle.test.ts), so a new lookup cannot silently miss its data in the bundles.
 */
export function moduleDataFiles(root: string): Record<string, string[]> {
  return {
    // the handler<->launcher protocol
    "pkg/handler-launcher-com/proto.ts": Object.values(PROTO_FILES).map((file) =>
      path.posix.join("pkg/handler-launcher-com", file),
    ),
    // kubelet's device plugin API
    "pkg/virt-handler/device-manager/deviceplugin/v1beta1/api.ts": [
      "pkg/virt-handler/device-manager/deviceplugin/v1beta1/api.proto",
    ],
    // upstream's OpenAPI document and its addenda, found by walking up from the module
    "pkg/virt-operator/util/swagger.ts": [
      SWAGGER_PATH,
      ...filesIn(root, path.posix.join(path.dirname(SWAGGER_PATH), ADDENDA_DIR)),
    ],
    // the package root (package.json, written by the build) and a version file when the checkout has one;
    // without one the version comes from git, which finds the checkout from inside dist/ too
    "pkg/version/version.ts": existsSync(path.join(root, VERSION_FILE)) ? [VERSION_FILE] : [],
  };
}

function filesIn(root: string, dir: string): string[] {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.posix.join(dir, entry.name))
    .sort();
}

const IMPORT_META = /\bimport\.meta(?:\.(url|dirname|filename)\b)?/g;

/**
 * `source` with import.meta.url/dirname/filename replaced by those of the module's place in the bundle folder,
 * `fromBundle` being that place relative to the bundle (e.g. ../pkg/version/version.ts). The helpers are
 * imported at the end of the module (imports hoist), so line numbers and the source map stay as they were.
 */
export function rewriteImportMeta(source: string, fromBundle: string, module: string): string {
  const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url)`;
  let helpers = false;
  const rewritten = source.replace(IMPORT_META, (match, property: string | undefined) => {
    switch (property) {
      case "url":
        return `${url}.href`;
      case "filename":
        helpers = true;
        return `__kvtsFileURLToPath(${url})`;
      case "dirname":
        helpers = true;
        return `__kvtsDirname(__kvtsFileURLToPath(${url}))`;
      default:
        throw new Error(
          `${module}: ${match} cannot be bundled (only import.meta.url, .dirname and .filename)`,
        );
    }
  });
  if (!helpers) return rewritten;
  return (
    rewritten +
    '\nimport { fileURLToPath as __kvtsFileURLToPath } from "node:url";\n' +
    'import { dirname as __kvtsDirname } from "node:path";\n'
  );
}

/** Points import.meta of the checkout's own modules at their mirrored place in the bundle folder. */
function moduleUrlPlugin(root: string, outDir: string, usedImportMeta: Set<string>): Plugin {
  const binDir = path.join(outDir, BUNDLE_BIN_DIR);
  return {
    name: "kubevirt-ts-module-url",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
        if (args.path.split(path.sep).includes("node_modules")) return undefined;
        const source = await readFile(args.path, "utf8");
        if (!source.includes("import.meta")) return { contents: source, loader: "ts" };
        const module = path.relative(root, args.path);
        if (module.startsWith(".."))
          throw new Error(`${args.path} uses import.meta outside the checkout ${root}`);
        usedImportMeta.add(module.split(path.sep).join("/"));
        const fromBundle = path.relative(binDir, path.join(outDir, module)).split(path.sep).join("/");
        return { contents: rewriteImportMeta(source, fromBundle, module), loader: "ts" };
      });
    },
  };
}

/**
 * CommonJS dependencies call require() and read __dirname/__filename, which an ES module lacks; the bundle
 * defines them from its own URL (as esbuild's documentation suggests for ESM bundles of CommonJS code).
 */
const BANNER = [
  'import { createRequire as __kvtsCreateRequire } from "node:module";',
  'import { fileURLToPath as __kvtsBannerFileURLToPath } from "node:url";',
  "const require = __kvtsCreateRequire(import.meta.url);",
  "const __filename = __kvtsBannerFileURLToPath(import.meta.url);",
  'const __dirname = __kvtsBannerFileURLToPath(new URL(".", import.meta.url));',
].join("\n");

function buildOptions(root: string): BuildOptions {
  const tsconfig = path.join(root, "tsconfig.json");
  return {
    absWorkingDir: root,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outExtension: { ".js": ".mjs" },
    sourcemap: "linked",
    // the map names the sources; their text stays in the checkout (smaller maps, less to parse on start)
    sourcesContent: false,
    banner: { js: BANNER },
    // Whitespace and syntax only: a smaller bundle is less source text for V8 to keep (about 6-10 MiB less RSS
    // per process, measured), while identifiers keep their names for stack traces, logs and Function.name.
    minifyWhitespace: true,
    minifySyntax: true,
    // the licences of the bundled dependencies, in <binary>.mjs.LEGAL.txt beside each bundle
    legalComments: "linked",
    logLevel: "warning",
    ...(existsSync(tsconfig) ? { tsconfig } : {}),
  };
}

export interface BundleOptions {
  /** The checkout. */
  root: string;
  /** Default <root>/dist/components. */
  outDir?: string;
  /** Default: bundledBinaries(). */
  binaries?: readonly string[];
  /** Extra entry points by name, bundled like binaries (tests). */
  entries?: Readonly<Record<string, string>>;
  /** Files modules read beside themselves, as moduleDataFiles gives them; default moduleDataFiles(root). */
  dataFiles?: Readonly<Record<string, readonly string[]>>;
  /** Rebuild even when up to date. */
  force?: boolean;
  log?: (line: string) => void;
}

export interface BundleResult {
  outDir: string;
  built: string[];
  upToDate: string[];
  /** Binaries without a cmd/<binary>/main.ts in this checkout. */
  withoutSource: string[];
  /** Checkout modules of the built bundles that use import.meta. */
  importMetaModules: string[];
}

interface Stamp {
  hash: string;
  inputs: string[];
}

const OWN_SOURCES = ["bundle.ts", "layout.ts"].map((file) => fileURLToPath(new URL(file, import.meta.url)));

class InputHasher {
  private readonly files = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly root: string,
    private readonly global: string,
  ) {}

  private file(input: string): Promise<string | undefined> {
    let hash = this.files.get(input);
    if (!hash) {
      hash = readFile(path.resolve(this.root, input)).then(
        (content) => createHash("sha256").update(content).digest("hex"),
        // esbuild's virtual modules ("(disabled):...", "<stdin>") are no files and change with the build options
        () => (/^[(<]/.test(input) ? "virtual" : undefined),
      );
      this.files.set(input, hash);
    }
    return hash;
  }

  /** The hash of a bundle's inputs; undefined when one of them is gone. */
  async of(inputs: readonly string[]): Promise<string | undefined> {
    const hash = createHash("sha256").update(this.global);
    for (const input of [...inputs].sort()) {
      const file = await this.file(input);
      if (file === undefined) return undefined;
      hash.update(`\n${input}\0${file}`);
    }
    return hash.digest("hex");
  }
}

async function globalHash(root: string): Promise<string> {
  const hash = createHash("sha256");
  const { banner, ...options } = buildOptions(root);
  hash.update(`esbuild ${esbuildVersion}\n${JSON.stringify(options)}\n${JSON.stringify(banner)}\n`);
  for (const file of OWN_SOURCES) hash.update(await readFile(file));
  return hash.digest("hex");
}

/** The files of a binary: <binary>.mjs, its source map and the licence comments of what it bundles. */
const BUNDLE_SUFFIXES = ["", ".map", ".LEGAL.txt"];

const stampFile = (outDir: string, name: string): string => path.join(outDir, ".stamps", `${name}.json`);

async function readStamp(file: string): Promise<Stamp | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as Partial<Stamp>;
    if (typeof parsed.hash === "string" && Array.isArray(parsed.inputs)) {
      return { hash: parsed.hash, inputs: parsed.inputs.map(String) };
    }
  } catch {
    // no stamp yet, or a broken one: rebuild
  }
  return undefined;
}

/** Writes `content` to `file` through a rename, unless it already holds exactly that; true when written. */
async function replaceFile(file: string, content: Uint8Array | string): Promise<boolean> {
  const bytes = typeof content === "string" ? Buffer.from(content) : Buffer.from(content);
  const current = await readFile(file).catch(() => undefined);
  if (current?.equals(bytes)) return false;
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, bytes, { mode: 0o644 });
  await rename(temporary, file);
  return true;
}

const mebibytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Builds the bundles whose inputs changed, and refreshes the data files and the package root. */
export async function bundleComponents(options: BundleOptions): Promise<BundleResult> {
  const root = path.resolve(options.root);
  const outDir = path.resolve(options.outDir ?? path.join(root, BUNDLE_DIR));
  const log = options.log ?? ((line: string) => console.log(line));
  const say = (line: string): void => log(`[components] ${line}`);

  const entries = new Map<string, string>();
  const withoutSource: string[] = [];
  for (const binary of options.binaries ?? bundledBinaries()) {
    const source = bundleSource(root, binary);
    if (existsSync(source)) entries.set(binary, source);
    else {
      withoutSource.push(binary);
      // a bundle whose source is gone must not keep running
      for (const suffix of BUNDLE_SUFFIXES)
        await rm(bundleFile(root, binary, outDir) + suffix, { force: true });
      await rm(stampFile(outDir, binary), { force: true });
    }
  }
  for (const [name, source] of Object.entries(options.entries ?? {}))
    entries.set(name, path.resolve(root, source));
  if (withoutSource.length > 0) {
    say(`no TypeScript entry point for ${withoutSource.join(", ")} (cmd/<binary>/main.ts): not bundled`);
  }

  const hasher = new InputHasher(root, await globalHash(root));
  const stale: string[] = [];
  const upToDate: string[] = [];
  for (const name of entries.keys()) {
    const stamp = options.force ? undefined : await readStamp(stampFile(outDir, name));
    const current = stamp && (await hasher.of(stamp.inputs));
    const output = await stat(bundleFile(root, name, outDir)).catch(() => undefined);
    if (stamp && current === stamp.hash && output?.isFile()) upToDate.push(name);
    else stale.push(name);
  }
  if (upToDate.length > 0) say(`up to date: ${upToDate.join(", ")}`);

  const importMetaModules = new Set<string>();
  if (stale.length > 0) {
    const started = Date.now();
    say(`bundling ${stale.join(", ")} with esbuild ${esbuildVersion} into ${outDir}`);
    const result = await build({
      ...buildOptions(root),
      entryPoints: Object.fromEntries(
        stale.map((name) => [path.join(BUNDLE_BIN_DIR, name), entries.get(name) as string]),
      ),
      outdir: outDir,
      write: false,
      metafile: true,
      plugins: [moduleUrlPlugin(root, outDir, importMetaModules)],
    });
    for (const file of result.outputFiles) await replaceFile(file.path, file.contents);
    const written = new Set(result.outputFiles.map((file) => file.path));
    for (const name of stale) {
      const bundle = bundleFile(root, name, outDir);
      // what an earlier build wrote beside the bundle and this one did not (a licence file)
      for (const suffix of BUNDLE_SUFFIXES) {
        if (!written.has(bundle + suffix)) await rm(bundle + suffix, { force: true });
      }
      const meta = result.metafile.outputs[path.relative(root, bundle).split(path.sep).join("/")];
      if (!meta) throw new Error(`esbuild reported no output ${bundle}`);
      const inputs = Object.keys(meta.inputs);
      const hash = await hasher.of(inputs);
      if (hash === undefined) throw new Error(`an input of ${bundle} vanished during the build`);
      await replaceFile(stampFile(outDir, name), JSON.stringify({ hash, inputs } satisfies Stamp) + "\n");
      say(`${path.relative(outDir, bundle)}: ${mebibytes(meta.bytes)} from ${inputs.length} modules`);
    }
    say(`bundled ${stale.length} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }

  const copied = await refreshDataFiles(root, outDir, options.dataFiles ?? moduleDataFiles(root));
  say(`data files: ${copied.total} (${copied.updated} updated)`);
  return {
    outDir,
    built: stale,
    upToDate,
    withoutSource,
    importMetaModules: [...importMetaModules].sort(),
  };
}

/** Copies MODULE_DATA_FILES into the bundle folder and writes its package.json (the package root). */
async function refreshDataFiles(
  root: string,
  outDir: string,
  dataFiles: Readonly<Record<string, readonly string[]>>,
): Promise<{ total: number; updated: number }> {
  const files = [...new Set(Object.values(dataFiles).flat())];
  let updated = 0;
  for (const file of files) {
    if (await replaceFile(path.join(outDir, file), await readFile(path.join(root, file)))) updated++;
  }
  // a version file the checkout no longer has must not pin the bundles' version
  if (!files.includes(VERSION_FILE)) await rm(path.join(outDir, VERSION_FILE), { force: true });
  const pkg = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as Record<string, unknown>;
  const packageJson = { name: pkg["name"], version: pkg["version"], private: true, type: "module" };
  if (await replaceFile(path.join(outDir, "package.json"), JSON.stringify(packageJson, null, 2) + "\n"))
    updated++;
  return { total: files.length + 1, updated };
}
