// The component Dockerfiles against what the local image store fakes (deploy/local/node-agent/runtime/image-store.ts),
// against each other (one shared build stage) and against .dockerignore (the build context holds what they use).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import {
  COMPONENT_BINARIES,
  COMPONENT_SCRIPTS,
  NATIVE_BINARIES,
} from "../../deploy/local/node-agent/runtime/image-store.js";
import { bundleSource } from "../bundle-components/layout.js";
import { isIgnored, parseDockerignore } from "./context.js";
import { COMPONENTS } from "./options.js";
import { imageTypescriptBinaries } from "./stage.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dockerfile = (component: string): string =>
  readFileSync(path.join(ROOT, `Dockerfile.${component}`), "utf8");

/** The build stage: from its FROM up to the next stage's. */
function buildStage(text: string): string {
  const start = text.indexOf("FROM ${NODE_BUILD_IMAGE} AS build");
  expect(start).toBeGreaterThanOrEqual(0);
  const end = text.indexOf("\nFROM ", start);
  expect(end).toBeGreaterThan(start);
  return text.slice(start, end);
}

function nativeBuilt(text: string): string[] {
  return (/for binary in ([^;]*); do\s*\\\s*\n\s*gcc /.exec(text)?.[1] ?? "").split(" ").filter(Boolean);
}

/** The instructions of the last stage (the image), comments left out. */
function finalStage(text: string): string[] {
  const stage = text.slice(text.lastIndexOf("\nFROM "));
  return stage
    .split("\n")
    .filter((line) => /^[A-Z]+ /.test(line))
    .map((line) => line.trim());
}

describe("the component Dockerfiles", () => {
  it.each(COMPONENTS)(
    "%s takes its base images as build arguments, the official Node.js 20 images by default",
    (component) => {
      const text = dockerfile(component);
      expect(text).toContain("ARG NODE_IMAGE=node:20-bookworm-slim\n");
      expect(text).toContain("ARG NODE_BUILD_IMAGE=node:20-bookworm\n");
      expect(text).toContain("FROM ${NODE_BUILD_IMAGE} AS build\n");
      expect(finalStage(text)[0]).toBe("FROM ${NODE_IMAGE}");
    },
  );

  it("share one build stage, line for line, so one build's layers serve the others", () => {
    const stages = COMPONENTS.map((component) => buildStage(dockerfile(component)));
    for (const stage of stages) expect(stage).toBe(stages[0]);
  });

  it("stage every image's files in that one build stage, the version in a step of its own after them", () => {
    const stage = buildStage(dockerfile("virt-api"));
    expect(stage).toContain("&& npx tsx hack/build-images/stage.ts --out /out\n");
    // a new commit that changes no source must not bundle again: the version comes after the bundling
    expect(stage.indexOf("ARG KUBEVIRT_TS_VERSION=")).toBeGreaterThan(stage.indexOf("stage.ts --out /out"));
  });

  it("have a TypeScript entry point for every binary they bundle but those kubevirt-ts has not written yet", () => {
    const missing = COMPONENTS.flatMap(imageTypescriptBinaries).filter(
      (binary) => !readable(bundleSource(ROOT, binary)),
    );
    // their wrappers say so; the local image store's do too
    expect(missing.sort()).toEqual(["virt-chroot", "virt-freezer", "virt-probe"]);
  });

  it.each(COMPONENTS)("%s builds the image's C programs statically and ships its scripts", (component) => {
    const text = dockerfile(component);
    const native = (COMPONENT_BINARIES[component] ?? []).filter((binary) => NATIVE_BINARIES.has(binary));
    expect(nativeBuilt(text).sort()).toEqual(native.sort());
    if (native.length > 0)
      expect(text).toContain('gcc -static -Os -Wall -o "/native/usr/bin/$binary" "/src/cmd/$binary/main.c"');
    for (const script of COMPONENT_SCRIPTS[component] ?? []) {
      expect(text).toContain(`install -m 0755 /src/${script.file} /native${script.path}`);
    }
  });

  it.each([
    ["virt-operator", "1001"],
    ["virt-api", "1001"],
    ["virt-controller", "1001"],
    ["virt-handler", undefined],
    ["virt-launcher", undefined], // the launcher Pod sets runAsUser 107; the node-labeller runs it as root
  ])("%s runs upstream's command as upstream's user (%s)", (component, user) => {
    const stage = finalStage(dockerfile(component));
    expect(stage).toContain(`ENTRYPOINT ["/usr/bin/${component}"]`);
    expect(stage.filter((line) => line.startsWith("USER "))).toEqual(user ? [`USER ${user}`] : []);
    // the image gets its own bundles and wrappers and the version, nothing else of the build stage
    expect(stage.filter((line) => line.includes("--from=build"))).toEqual([
      `COPY --from=build /out/${component}/ /`,
      "COPY --from=build /version/ /",
    ]);
  });

  it("give the launcher image the qemu user, QEMU, libvirt, virsh, qemu-img, genisoimage and virsh's URI", () => {
    const text = dockerfile("virt-launcher");
    expect(text).toContain("groupadd --gid 107 qemu");
    expect(text).toContain(
      "useradd --uid 107 --gid 107 --comment qemu --home-dir /home/qemu --no-create-home --shell /bin/sh qemu",
    );
    for (const pkg of [
      "qemu-system-x86",
      "libvirt-daemon",
      "libvirt-daemon-driver-qemu",
      "libvirt-clients",
      "qemu-utils",
      "genisoimage",
      // what `kubectl exec … -c compute -- ps -ef` and `ip a` use, as in upstream's image
      "iproute2",
      "procps",
    ]) {
      expect(text).toMatch(new RegExp(`apt-get install[^\\n]*(\\\\\\n[^\\n]*)*\\b${pkg}\\b`));
    }
    expect(text).toContain(
      `'uri_default = "qemu+unix:///session?socket=/var/run/libvirt/libvirt-sock"\\n' > /etc/libvirt/libvirt.conf`,
    );
  });

  it("give the handler image the tools it runs in pods' namespaces", () => {
    expect(dockerfile("virt-handler")).toContain(
      "apt-get install -y --no-install-recommends iproute2 nftables procps",
    );
  });
});

function readable(file: string): boolean {
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
}

describe(".dockerignore", () => {
  const rules = parseDockerignore(readFileSync(path.join(ROOT, ".dockerignore"), "utf8"));

  it("sends what the Dockerfiles copy", () => {
    for (const file of [
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "cmd/virt-tail/main.c",
      "pkg/native/kvlog.h",
    ]) {
      expect(isIgnored(rules, file), file).toBe(false);
    }
    for (const script of Object.values(COMPONENT_SCRIPTS).flat())
      expect(isIgnored(rules, script.file)).toBe(false);
  });

  it("sends every module the bundler and the bundled binaries are made of, and the data files they read", async () => {
    const entries = [
      "hack/build-images/stage.ts",
      ...new Set(
        Object.values(COMPONENT_BINARIES)
          .flat()
          .map((binary) => bundleSource(ROOT, binary)),
      ),
    ].filter(readable);
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: entries,
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      write: false,
      metafile: true,
      outdir: "/nonexistent",
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.length).toBeGreaterThan(100);
    expect(inputs.filter((input) => isIgnored(rules, input))).toEqual([]);
    expect(isIgnored(rules, "api/openapi-spec/swagger.json")).toBe(false);
  });

  it("leaves out what would make every build send (or rebuild for) more than it needs", () => {
    for (const file of [
      "node_modules/zod/package.json",
      ".git/HEAD",
      ".local/x",
      "dist/components/bin/virt-api.mjs",
      "README.md",
      "pkg/version/version.test.ts",
      "test/e2e/vm.test.ts",
    ]) {
      expect(isIgnored(rules, file), file).toBe(true);
    }
  });
});
