import { existsSync } from "node:fs";
import {
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDynamicElf } from "./busybox-image.js";
import { parseImageReference } from "./image-reference.js";
import {
  COMPONENT_BINARIES,
  builtComponentDir,
  IMAGE_RULES,
  ImageStore,
  LocalImagePullError,
  matchLocalImage,
  NATIVE_BINARIES,
} from "./image-store.js";
import { PERSONALITIES, personalityRoot } from "../../guest/test-guest.js";
import { runnable } from "../../../../pkg/testutils/requirement.js";

let cacheDir: string;
let checkout: string;
let store: ImageStore;

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(os.tmpdir(), "kvts-images-"));
  // A checkout with only the C sources the store compiles, and the header they share.
  checkout = path.join(cacheDir, "checkout");
  await mkdir(path.join(checkout, "pkg/native"), { recursive: true });
  await copyFile(
    new URL("../../../../pkg/native/kvlog.h", import.meta.url),
    path.join(checkout, "pkg/native/kvlog.h"),
  );
  for (const name of NATIVE_BINARIES) {
    await mkdir(path.join(checkout, "cmd", name), { recursive: true });
    await copyFile(
      new URL(`../../../../cmd/${name}/main.c`, import.meta.url),
      path.join(checkout, "cmd", name, "main.c"),
    );
  }
  store = new ImageStore({ cacheDir, checkoutDir: checkout });
});

afterAll(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});

describe("the image table", () => {
  it.each([
    ["quay.io/kubevirt/virt-handler:v1.5.0", { kind: "component", component: "virt-handler" }],
    ["registry:5000/kubevirt/virt-launcher:devel", { kind: "component", component: "virt-launcher" }],
    ["virt-operator", { kind: "component", component: "virt-operator" }],
    [`localhost/virt-api@sha256:${"0".repeat(64)}`, { kind: "component", component: "virt-api" }],
    ["example.org/x/virt-controller:1", { kind: "component", component: "virt-controller" }],
    ["busybox", { kind: "busybox" }],
    ["busybox:1.36.1", { kind: "busybox" }],
    ["registry.k8s.io/e2e-test-images/busybox:1.36.1-1", { kind: "busybox" }],
    ["kubevirt-ts/test-guest:latest", { kind: "directory", name: "test-guest" }],
    ["docker.io/kubevirt-ts/test-guest:v2", { kind: "directory", name: "test-guest" }],
    ["quay.io/kubevirt/cirros-container-disk-demo:v1.5.0", { kind: "directory", name: "test-guest-cirros" }],
    ["quay.io/kubevirt/cirros-container-disk-demo", { kind: "directory", name: "test-guest-cirros" }],
    [
      "registry:5000/kubevirt/cirros-container-disk-demo:devel",
      { kind: "directory", name: "test-guest-cirros" },
    ],
    ["quay.io/kubevirt/alpine-container-disk-demo:v1.8.4", { kind: "directory", name: "test-guest-alpine" }],
    [
      "registry:5000/kubevirt/alpine-container-disk-demo:devel",
      { kind: "directory", name: "test-guest-alpine" },
    ],
    [
      "quay.io/kubevirt/alpine-with-test-tooling-container-disk:v1.8.4",
      { kind: "directory", name: "test-guest-alpine-with-test-tooling" },
    ],
    [
      "registry:5000/kubevirt/alpine-with-test-tooling-container-disk:devel",
      { kind: "directory", name: "test-guest-alpine-with-test-tooling" },
    ],
    [
      `quay.io/kubevirt/fedora-with-test-tooling-container-disk@sha256:${"1".repeat(64)}`,
      { kind: "directory", name: "test-guest-fedora" },
    ],
    [
      "registry:5000/kubevirt/fedora-with-test-tooling-container-disk:devel",
      { kind: "directory", name: "test-guest-fedora" },
    ],
    ["registry.k8s.io/coredns/coredns:v1.12.1", { kind: "binary", name: "coredns" }],
    ["coredns/coredns:1.15.0", { kind: "binary", name: "coredns" }],
    [
      "rancher/local-path-provisioner:v0.0.30",
      { kind: "binary", name: "local-path-provisioner", at: "/usr/bin/local-path-provisioner" },
    ],
  ])("maps %s", (image, expected) => {
    expect(matchLocalImage(parseImageReference(image))).toMatchObject(expected);
  });

  it("maps the test guest's names only to images its build makes (one folder per personality)", () => {
    const built = PERSONALITIES.map((personality) =>
      path.basename(personalityRoot(personality, "/i/test-guest")),
    );
    const guestImages = IMAGE_RULES.map((rule) => rule.image).filter(
      (image) => image.kind === "directory" && image.name.startsWith("test-guest"),
    );
    expect(guestImages.length).toBeGreaterThan(0);
    for (const image of guestImages) expect(built).toContain(image.kind === "directory" ? image.name : "");
  });

  it.each([
    "nginx",
    "quay.io/kubevirt/virt-handler-extra",
    "quay.io/kubevirt/fedora-container-disk-demo",
    // only upstream's registries: the same names elsewhere are someone else's images
    "docker.io/kubevirt/cirros-container-disk-demo",
    "example.org/kubevirt/alpine-container-disk-demo",
    "quay.io/other/fedora-with-test-tooling-container-disk",
  ])("knows nothing of %s", (image) => {
    expect(matchLocalImage(parseImageReference(image))).toBeUndefined();
  });
});

describe("ImageStore.pull", () => {
  it("fails unknown images the way kubelet reports a missing image", async () => {
    const error = await store.pull("nginx:1.27").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalImagePullError);
    expect((error as Error).message).toMatch(
      /^rpc error: code = NotFound desc = failed to pull and unpack image "docker\.io\/library\/nginx:1\.27": failed to resolve reference "docker\.io\/library\/nginx:1\.27": docker\.io\/library\/nginx:1\.27: not found/,
    );
  });

  it("fails malformed names with kubelet's parse message", async () => {
    await expect(store.pull("Not/Valid")).rejects.toThrow(
      `couldn't parse image reference "Not/Valid": invalid reference format`,
    );
  });

  it("runs the checkout's bundled component binaries through wrappers at their upstream paths", async () => {
    const image = await store.pull("quay.io/kubevirt/virt-launcher:v1.5.0");
    expect(image.rootfs).toEqual({ kind: "host" });
    expect(image.entrypoint).toEqual(["/usr/bin/virt-launcher"]);
    expect(image.executables.map((file) => file.path)).toContain("/usr/bin/virt-launcher");
    const wrapper = image.executables.find((file) => file.path === "/usr/bin/virt-launcher");
    expect(wrapper && "content" in wrapper && wrapper.content).toBe(
      `#!/bin/sh\nexec '${process.execPath}' '${checkout}/dist/components/bin/virt-launcher.mjs' "$@"\n`,
    );
    expect(image.imageID).toMatch(/^quay\.io\/kubevirt\/virt-launcher@sha256:[0-9a-f]{64}$/);
  });

  it("runs no TypeScript at run time: no tsx in any wrapper or in the environment", async () => {
    for (const component of Object.keys(COMPONENT_BINARIES)) {
      const image = await store.pull(`quay.io/kubevirt/${component}:v1.5.0`);
      for (const file of image.executables) {
        if (file.path.startsWith("/usr/bin/") && "content" in file) {
          expect(file.content, file.path).not.toMatch(/tsx|\.ts\b/);
        }
      }
      expect(Object.keys(image.env)).toEqual(["PATH"]);
    }
  });

  it("says, for a missing bundle, how to build it or that the checkout has no source for it", async () => {
    await mkdir(path.join(checkout, "cmd/virt-launcher"), { recursive: true });
    await writeFile(path.join(checkout, "cmd/virt-launcher/main.ts"), "");
    const image = await store.pull("quay.io/kubevirt/virt-launcher:v1.5.0");
    expect(image.entryPoints["/usr/bin/virt-launcher"]).toEqual({
      file: `${checkout}/dist/components/bin/virt-launcher.mjs`,
      missing:
        'run "make binaries" (hack/bundle-components/main.ts) to build it from cmd/virt-launcher/main.ts',
    });
    expect(image.entryPoints["/usr/bin/virt-probe"]).toEqual({
      file: `${checkout}/dist/components/bin/virt-probe.mjs`,
      missing: "this checkout has no cmd/virt-probe/main.ts to build it from",
    });
  });

  it.each(["container-disk", "virt-tail", "virt-launcher-monitor"])(
    "carries %s as a static binary compiled from its cmd/<name>/main.c, once",
    async (name) => {
      const first = await store.pull("quay.io/kubevirt/virt-launcher:v1.5.0");
      const binary = first.executables.find((file) => file.path === `/usr/bin/${name}`);
      expect(binary && "source" in binary).toBe(true);
      const source = binary && "source" in binary ? binary.source : "";
      expect(source.startsWith(path.join(cacheDir, "bin", `${name}-`))).toBe(true);
      const head = await readFile(source);
      expect(isDynamicElf(head.subarray(0, 4096))).toBe(false);
      expect(first.entryPoints[`/usr/bin/${name}`]).toBeUndefined();
      const again = await store.pull("virt-launcher");
      expect(again.executables.find((file) => file.path === `/usr/bin/${name}`)).toEqual(binary);
    },
  );

  it("gives the launcher image upstream's qemu user (uid 107) on top of the host's accounts", async () => {
    const image = await store.pull("quay.io/kubevirt/virt-launcher:v1.5.0");
    const file = (name: string) => image.executables.find((entry) => entry.path === name);
    const passwd = file("/etc/passwd");
    expect(passwd && "content" in passwd ? passwd.content : "").toMatch(/^qemu:x:107:107:/m);
    expect(passwd && "content" in passwd ? passwd.content : "").toMatch(/^root:x:0:0:/m);
    expect(passwd && "mode" in passwd ? passwd.mode : undefined).toBe(0o644);
    const group = file("/etc/group");
    expect(group && "content" in group ? group.content : "").toMatch(/^qemu:x:107:$/m);
    const handler = await store.pull("quay.io/kubevirt/virt-handler:v1.5.0");
    expect(handler.executables.map((entry) => entry.path)).not.toContain("/etc/passwd");
  });

  it("points the launcher image's virsh at the launcher's private libvirtd", async () => {
    const image = await store.pull("quay.io/kubevirt/virt-launcher:v1.5.0");
    const conf = image.executables.find((entry) => entry.path === "/etc/libvirt/libvirt.conf");
    expect(conf && "content" in conf ? conf.content : "").toBe(
      'uri_default = "qemu+unix:///session?socket=/var/run/libvirt/libvirt-sock"\n',
    );
    const handler = await store.pull("quay.io/kubevirt/virt-handler:v1.5.0");
    expect(handler.executables.map((entry) => entry.path)).not.toContain("/etc/libvirt/libvirt.conf");
  });

  it("says how to build the test guest when it is missing", async () => {
    await expect(store.pull("quay.io/kubevirt/cirros-container-disk-demo")).rejects.toThrow(
      `the local image directory ${path.join(cacheDir, "images/test-guest-cirros")} does not exist; build it with deploy/local/guest/build-test-guest.sh`,
    );
  });

  it("resolves the test guest and each stand-in to its personality's built directory", async () => {
    for (const [name, folder] of [
      ["kubevirt-ts/test-guest:latest", "test-guest"],
      ["registry:5000/kubevirt/cirros-container-disk-demo:devel", "test-guest-cirros"],
      ["quay.io/kubevirt/fedora-with-test-tooling-container-disk:v1.8.4", "test-guest-fedora"],
    ] as const) {
      await mkdir(path.join(cacheDir, "images", folder, "disk"), { recursive: true });
      const image = await store.pull(name);
      expect(image.rootfs).toEqual({ kind: "directory", path: path.join(cacheDir, "images", folder) });
    }
  });

  const staticBusybox = runnable(
    "the busybox image test",
    existsSync("/bin/busybox") ? undefined : "/bin/busybox is missing (busybox-static)",
  );
  it.runIf(staticBusybox)("builds a busybox image with applets from the host's busybox-static", async () => {
    const image = await store.pull("busybox:1.36");
    const root = path.join(cacheDir, "images/busybox");
    expect(image.rootfs).toEqual({ kind: "directory", path: root });
    expect(image.cmd).toEqual(["sh"]);
    expect(await readlink(path.join(root, "bin/sh"))).toBe("busybox");
    expect(await readlink(path.join(root, "bin/httpd"))).toBe("busybox");
    expect((await lstat(path.join(root, "tmp"))).mode & 0o7777).toBe(0o1777);
    expect(await readFile(path.join(root, "etc/passwd"), "utf8")).toMatch(/^root:x:0:0:/);
    await store.pull("busybox"); // a second pull reuses the built image
  });

  it("says how to build CoreDNS when its binary is missing", async () => {
    await expect(store.pull("registry.k8s.io/coredns/coredns:v1.15.0")).rejects.toThrow(
      `${path.join(cacheDir, "bin/coredns")} does not exist; build it with deploy/local/build-binaries.sh`,
    );
  });

  it("refuses a dynamically linked CoreDNS: it could not run alone in its root", async () => {
    await mkdir(path.join(cacheDir, "bin"), { recursive: true });
    await copyFile(process.execPath, path.join(cacheDir, "bin/coredns"));
    await expect(store.pull("registry.k8s.io/coredns/coredns:v1.15.0")).rejects.toThrow(
      /is dynamically linked/,
    );
    await rm(path.join(cacheDir, "bin/coredns"));
  });

  it.runIf(staticBusybox)(
    "puts the built CoreDNS binary alone at /coredns of its image, as upstream's",
    async () => {
      // any static executable stands in for the Go-built CoreDNS here
      await mkdir(path.join(cacheDir, "bin"), { recursive: true });
      await copyFile("/bin/busybox", path.join(cacheDir, "bin/coredns"));
      const image = await store.pull("registry.k8s.io/coredns/coredns:v1.15.0");
      const root = path.join(cacheDir, "images/coredns");
      expect(image).toMatchObject({
        rootfs: { kind: "directory", path: root },
        entrypoint: ["/coredns"],
        cmd: [],
      });
      expect((await lstat(path.join(root, "coredns"))).mode & 0o777).toBe(0o755);
      expect((await lstat(path.join(root, "tmp"))).mode & 0o7777).toBe(0o1777);
      expect((await readFile(path.join(root, "coredns"))).equals(await readFile("/bin/busybox"))).toBe(true);
    },
  );

  it.runIf(staticBusybox)(
    "puts local-path-provisioner at /usr/bin of its image, where its manifest's bare command finds it",
    async () => {
      await mkdir(path.join(cacheDir, "bin"), { recursive: true });
      await copyFile("/bin/busybox", path.join(cacheDir, "bin/local-path-provisioner"));
      const image = await store.pull("rancher/local-path-provisioner:v0.0.30");
      const root = path.join(cacheDir, "images/local-path-provisioner");
      expect(image).toMatchObject({
        rootfs: { kind: "directory", path: root },
        entrypoint: ["/usr/bin/local-path-provisioner"],
        env: { PATH: expect.stringContaining("/usr/bin") as unknown },
      });
      expect((await lstat(path.join(root, "usr/bin/local-path-provisioner"))).mode & 0o777).toBe(0o755);
      expect(existsSync(path.join(root, "local-path-provisioner"))).toBe(false);
    },
  );
});

describe("ImageStore.pull of component images built from their Dockerfiles", () => {
  const imageID = "ab".repeat(32);

  /** An export as hack/build-images leaves it: .exports/<name>/{rootfs,config.json} behind a symlink. */
  async function exportImage(cache: string, component: string, config: object): Promise<string> {
    const exported = path.join(cache, "images/components/.exports", `${component}-${imageID.slice(0, 12)}`);
    await mkdir(path.join(exported, "rootfs/usr/bin"), { recursive: true });
    await writeFile(
      path.join(exported, "config.json"),
      JSON.stringify({ image: component, imageID, config }),
    );
    await symlink(exported, builtComponentDir(cache, component));
    return exported;
  }

  it("runs the exported root filesystem with the image config's entrypoint, user, env and working dir", async () => {
    const cache = await mkdtemp(path.join(os.tmpdir(), "kvts-built-"));
    try {
      const exported = await exportImage(cache, "virt-api", {
        Entrypoint: ["/usr/bin/virt-api"],
        Cmd: null,
        User: "1001",
        Env: ["PATH=/usr/local/bin:/usr/bin:/bin", "NODE_VERSION=20.20.2", "EMPTY="],
        WorkingDir: "",
      });
      const built = new ImageStore({ cacheDir: cache, checkoutDir: checkout, componentImages: "built" });
      const image = await built.pull("quay.io/kubevirt/virt-api:v1.5.0");
      expect(image).toMatchObject({
        imageID: `quay.io/kubevirt/virt-api@sha256:${imageID}`,
        rootfs: { kind: "directory", path: path.join(exported, "rootfs") },
        entrypoint: ["/usr/bin/virt-api"],
        cmd: [],
        user: "1001",
        env: { PATH: "/usr/local/bin:/usr/bin:/bin", NODE_VERSION: "20.20.2", EMPTY: "" },
        workingDir: "/",
        executables: [],
      });
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });

  it("fails the pull, saying how to build it, when the image was not built or its record is broken", async () => {
    const cache = await mkdtemp(path.join(os.tmpdir(), "kvts-built-"));
    try {
      const built = new ImageStore({ cacheDir: cache, checkoutDir: checkout, componentImages: "built" });
      await expect(built.pull("virt-handler")).rejects.toThrow(
        /failed to pull and unpack image "docker.io\/library\/virt-handler:latest": .*virt-handler does not exist: build it from Dockerfile.virt-handler with "make images"/,
      );
      await exportImage(cache, "virt-handler", { Entrypoint: "not a list" });
      await expect(built.pull("virt-handler")).rejects.toThrow(/config.json is unreadable .*make images/);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});

describe("isDynamicElf", () => {
  it("tells a static executable from one needing the dynamic loader", async () => {
    expect(isDynamicElf(await readFile(process.execPath).then((b) => b.subarray(0, 4096)))).toBe(true);
    if (existsSync("/bin/busybox")) {
      expect(isDynamicElf((await readFile("/bin/busybox")).subarray(0, 4096))).toBe(false);
    }
    expect(() => isDynamicElf(Buffer.from("#!/bin/sh\n".padEnd(64)))).toThrow(/not a 64-bit ELF/);
  });
});
