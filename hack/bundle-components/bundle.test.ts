import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPONENT_BINARIES, NATIVE_BINARIES } from "../../deploy/local/node-agent/runtime/image-store.js";
import {
  CLIENT_BINARIES,
  bundleComponents,
  bundledBinaries,
  moduleDataFiles,
  rewriteImportMeta,
  typescriptBinaries,
} from "./bundle.js";
import { BUNDLE_NODE_FLAGS, bundleFile } from "./layout.js";

const run = promisify(execFile);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "kvts-bundle-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("rewriteImportMeta", () => {
  const FROM = "../pkg/a/b.ts";

  it("gives import.meta.url the module's URL in the bundle folder", () => {
    expect(rewriteImportMeta('const u = new URL("./x.proto", import.meta.url);\n', FROM, "pkg/a/b.ts")).toBe(
      'const u = new URL("./x.proto", new URL("../pkg/a/b.ts", import.meta.url).href);\n',
    );
  });

  it("derives dirname and filename from it, importing the helpers at the end so lines stay where they were", () => {
    const source = "const d = import.meta.dirname;\nconst f = import.meta.filename;\n";
    const rewritten = rewriteImportMeta(source, FROM, "pkg/a/b.ts");
    const lines = rewritten.split("\n");
    expect(lines[0]).toBe(
      'const d = __kvtsDirname(__kvtsFileURLToPath(new URL("../pkg/a/b.ts", import.meta.url)));',
    );
    expect(lines[1]).toBe('const f = __kvtsFileURLToPath(new URL("../pkg/a/b.ts", import.meta.url));');
    expect(rewritten).toMatch(/import \{ fileURLToPath as __kvtsFileURLToPath \} from "node:url";\n/);
    expect(rewritten).toMatch(/import \{ dirname as __kvtsDirname \} from "node:path";\n$/);
  });

  it("leaves a module without import.meta as it is", () => {
    expect(rewriteImportMeta("export const x = 1;\n", FROM, "pkg/a/b.ts")).toBe("export const x = 1;\n");
  });

  it("refuses what a bundle cannot give a module (import.meta.resolve, import.meta itself)", () => {
    expect(() => rewriteImportMeta('import.meta.resolve("x");', FROM, "pkg/a/b.ts")).toThrow(
      "pkg/a/b.ts: import.meta cannot be bundled",
    );
    expect(() => rewriteImportMeta("const m = import.meta;", FROM, "pkg/a/b.ts")).toThrow(
      /cannot be bundled/,
    );
  });
});

describe("typescriptBinaries", () => {
  it("is every binary of the component images but those built from C", () => {
    const all = new Set(Object.values(COMPONENT_BINARIES).flat());
    expect(new Set(typescriptBinaries())).toEqual(new Set([...all].filter((b) => !NATIVE_BINARIES.has(b))));
    expect(typescriptBinaries()).toEqual(expect.arrayContaining(["virt-handler", "virt-launcher"]));
  });
});

describe("bundleComponents' cache", () => {
  let root: string;
  let outDir: string;
  const lines: string[] = [];
  const bundle = (extra: { force?: boolean } = {}) =>
    bundleComponents({
      root,
      outDir,
      binaries: ["hello", "gone"],
      dataFiles: { "lib/data.ts": ["lib/data.txt"] },
      log: (line) => lines.push(line),
      ...extra,
    });
  const runHello = async () =>
    (await run(process.execPath, [...BUNDLE_NODE_FLAGS, bundleFile(root, "hello", outDir), "world"])).stdout;

  beforeAll(async () => {
    root = path.join(scratch, "checkout");
    outDir = path.join(root, "dist/components");
    await mkdir(path.join(root, "cmd/hello"), { recursive: true });
    await mkdir(path.join(root, "lib"), { recursive: true });
    await writeFile(path.join(root, "package.json"), '{ "name": "kubevirt-ts", "version": "9.9.9" }\n');
    await writeFile(
      path.join(root, "cmd/hello/main.ts"),
      'import { greeting } from "../../lib/greet.js";\nimport { data } from "../../lib/data.js";\n' +
        'console.log(`${greeting(process.argv[2] ?? "")} ${data()}`);\n',
    );
    await writeFile(
      path.join(root, "lib/greet.ts"),
      "export const greeting = (name: string): string => `hello ${name}`;\n",
    );
    await writeFile(
      path.join(root, "lib/data.ts"),
      'import { readFileSync } from "node:fs";\n' +
        'export const data = (): string => readFileSync(new URL("./data.txt", import.meta.url), "utf8").trim();\n',
    );
    await writeFile(path.join(root, "lib/data.txt"), "from beside the module\n");
  });

  it("bundles what has a source and says which binaries have none", async () => {
    const result = await bundle();
    expect(result).toMatchObject({ built: ["hello"], upToDate: [], withoutSource: ["gone"] });
    expect(result.importMetaModules).toEqual(["lib/data.ts"]);
    expect(existsSync(`${bundleFile(root, "hello", outDir)}.map`)).toBe(true);
    expect(await readFile(path.join(outDir, "lib/data.txt"), "utf8")).toBe("from beside the module\n");
    expect(JSON.parse(await readFile(path.join(outDir, "package.json"), "utf8"))).toEqual({
      name: "kubevirt-ts",
      version: "9.9.9",
      private: true,
      type: "module",
    });
    expect(await runHello()).toBe("hello world from beside the module\n");
    expect(lines.join("\n")).toMatch(/\[components\] no TypeScript entry point for gone/);
  });

  it("does nothing the second time, and not for a file touched without a change", async () => {
    const before = (await stat(bundleFile(root, "hello", outDir))).mtimeMs;
    await utimes(path.join(root, "lib/greet.ts"), new Date(), new Date(Date.now() + 5000));
    const result = await bundle();
    expect(result).toMatchObject({ built: [], upToDate: ["hello"] });
    expect((await stat(bundleFile(root, "hello", outDir))).mtimeMs).toBe(before);
    expect(lines.at(-2)).toBe("[components] up to date: hello");
  });

  it("rebuilds when an imported module changes", async () => {
    await writeFile(
      path.join(root, "lib/greet.ts"),
      "export const greeting = (name: string): string => `hi ${name}`;\n",
    );
    expect(await bundle()).toMatchObject({ built: ["hello"], upToDate: [] });
    expect(await runHello()).toBe("hi world from beside the module\n");
  });

  it("copies a changed data file without rebuilding", async () => {
    await writeFile(path.join(root, "lib/data.txt"), "changed\n");
    expect(await bundle()).toMatchObject({ built: [], upToDate: ["hello"] });
    expect(await runHello()).toBe("hi world changed\n");
  });

  it("rebuilds a bundle that was removed, and everything when forced", async () => {
    await rm(bundleFile(root, "hello", outDir));
    expect(await bundle()).toMatchObject({ built: ["hello"] });
    expect(await bundle({ force: true })).toMatchObject({ built: ["hello"] });
  });

  it("removes the bundle of a binary whose source is gone", async () => {
    await mkdir(path.join(root, "cmd/gone"), { recursive: true });
    await writeFile(path.join(root, "cmd/gone/main.ts"), 'console.log("still here");\n');
    expect(await bundle()).toMatchObject({ built: ["gone"], upToDate: ["hello"], withoutSource: [] });
    await rm(path.join(root, "cmd/gone"), { recursive: true });
    expect(await bundle()).toMatchObject({ built: [], withoutSource: ["gone"] });
    expect(existsSync(bundleFile(root, "gone", outDir))).toBe(false);
  });

  it("fails on a module that does not compile, and keeps the last good bundle", async () => {
    await writeFile(path.join(root, "lib/greet.ts"), "export const greeting = (;\n");
    await expect(bundle()).rejects.toThrow(/Build failed/);
    expect(await runHello()).toBe("hi world changed\n");
  });
});

describe("the component bundles", () => {
  let outDir: string;
  let result: Awaited<ReturnType<typeof bundleComponents>>;

  beforeAll(async () => {
    outDir = path.join(scratch, "components");
    result = await bundleComponents({
      root: repo,
      outDir,
      entries: { "data-probe": "hack/bundle-components/testdata/data-probe.ts" },
      log: () => undefined,
    });
  }, 300_000);

  it("ships the data files of every bundled module that looks beside itself", async () => {
    const data = moduleDataFiles(repo);
    expect(result.importMetaModules.length).toBeGreaterThan(0);
    for (const module of result.importMetaModules) expect(Object.keys(data)).toContain(module);
    for (const file of Object.values(data).flat()) {
      expect((await readFile(path.join(outDir, file))).equals(await readFile(path.join(repo, file)))).toBe(
        true,
      );
    }
  });

  it("finds protos, the OpenAPI document and the package root from inside a bundle", async () => {
    const { stdout } = await run(process.execPath, [
      ...BUNDLE_NODE_FLAGS,
      bundleFile(repo, "data-probe", outDir),
    ]);
    const found = JSON.parse(stdout) as {
      services: { name: string; methods: number }[];
      devicePlugin: string[];
      swaggerFile: string;
      definitions: number;
      packageRoot: string;
      gitVersion: string;
    };
    expect(found.services.map((service) => service.name)).toContain("kubevirt.cmd.v1.Cmd");
    for (const service of found.services) expect(service.methods).toBeGreaterThan(0);
    expect(found.devicePlugin).toEqual(expect.arrayContaining(["DevicePlugin", "Registration"]));
    expect(found.swaggerFile).toBe(path.join(outDir, "api/openapi-spec/swagger.json"));
    expect(found.definitions).toBeGreaterThan(100);
    expect(found.packageRoot).toBe(outDir);
    expect(found.gitVersion).toMatch(/^v\d+\.\d+\.\d+/);
  });

  it("starts each binary without tsx: its flag parser answers an unknown flag as the TypeScript entry does", async () => {
    const built = result.built.filter((name) => name !== "data-probe");
    expect(built.sort()).toEqual(
      bundledBinaries()
        .filter((b) => !result.withoutSource.includes(b))
        .sort(),
    );
    expect(built).toEqual(expect.arrayContaining([...CLIENT_BINARIES]));
    await Promise.all(
      built.map(async (binary) => {
        const failure = await run(process.execPath, [
          ...BUNDLE_NODE_FLAGS,
          bundleFile(repo, binary, outDir),
          "--no-such-flag",
        ]).then(
          () => undefined,
          (error: unknown) => error as { code: number; stderr: string },
        );
        expect(failure, binary).toBeDefined();
        expect(failure?.code, binary).toBeGreaterThan(0);
        // virtctl answers as upstream's (cobra) does; the components with node's parseArgs
        expect(failure?.stderr, binary).toMatch(
          binary === "virtctl" ? /^unknown flag: --no-such-flag$/m : /Unknown option '--no-such-flag'/,
        );
      }),
    );
  }, 120_000);
});
