import { describe, expect, it } from "vitest";
import {
  COMPONENTS,
  DEFAULT_REGISTRY,
  DEFAULT_TAG,
  UsageError,
  imageName,
  parseOptions,
  versionTag,
} from "./options.js";

describe("parseOptions", () => {
  it("builds and exports the five images as localhost/kubevirt-ts/<component>:devel by default", () => {
    const options = parseOptions([], {});
    expect(options).toEqual({
      registry: DEFAULT_REGISTRY,
      tag: DEFAULT_TAG,
      components: ["virt-operator", "virt-api", "virt-controller", "virt-handler", "virt-launcher"],
      export: true,
      prune: true,
      buildCa: undefined,
      force: false,
      help: false,
    });
    expect(imageName(options.registry, "virt-api", DEFAULT_TAG)).toBe("localhost/kubevirt-ts/virt-api:devel");
  });

  it("takes a registry (a trailing slash dropped) and a tag", () => {
    const options = parseOptions(["--registry", "quay.io/me/", "--tag", "v1.2.3"], {});
    expect(imageName(options.registry, "virt-handler", options.tag ?? "")).toBe(
      "quay.io/me/virt-handler:v1.2.3",
    );
    expect(parseOptions(["--registry=registry:5000/kubevirt"], {}).registry).toBe("registry:5000/kubevirt");
  });

  it("leaves the tag to the version with --version-tag, and refuses it beside --tag", () => {
    expect(parseOptions(["--version-tag"], {}).tag).toBeUndefined();
    expect(() => parseOptions(["--version-tag", "--tag", "x"], {})).toThrow(UsageError);
  });

  it("refuses names an image reference cannot hold", () => {
    expect(() => parseOptions(["--registry", "Quay.io/Me"], {})).toThrow(/no image repository prefix/);
    expect(() => parseOptions(["--tag", "a+b"], {})).toThrow(/no image tag/);
    expect(() => parseOptions(["--tag=-x"], {})).toThrow(/no image tag/);
  });

  it("builds the named components in build order, and refuses unknown ones and options", () => {
    expect(parseOptions(["virt-launcher", "virt-api"], {}).components).toEqual(["virt-api", "virt-launcher"]);
    expect(() => parseOptions(["virt-foo"], {})).toThrow(/no component image virt-foo/);
    expect(() => parseOptions(["--frobnicate"], {})).toThrow(UsageError);
  });

  it("trusts the CA bundle this machine's node trusts, unless told another", () => {
    expect(parseOptions([], { NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/ca-certificates.crt" }).buildCa).toBe(
      "/etc/ssl/certs/ca-certificates.crt",
    );
    expect(parseOptions(["--build-ca", "/tmp/ca.pem"], { NODE_EXTRA_CA_CERTS: "/x" }).buildCa).toBe(
      "/tmp/ca.pem",
    );
    expect(parseOptions([], { NODE_EXTRA_CA_CERTS: "" }).buildCa).toBeUndefined();
  });

  it("switches export, pruning and the caches off", () => {
    const options = parseOptions(["--no-export", "--no-prune", "--force"], {});
    expect([options.export, options.prune, options.force]).toEqual([false, false, true]);
  });

  it("knows the component images of the local image store", () => {
    expect(COMPONENTS).toEqual([
      "virt-operator",
      "virt-api",
      "virt-controller",
      "virt-handler",
      "virt-launcher",
    ]);
  });
});

describe("versionTag", () => {
  it("joins a version's build metadata with '-', as a tag cannot hold '+'", () => {
    expect(versionTag("v0.1.0+2c9f10278ab907-dirty")).toBe("v0.1.0-2c9f10278ab907-dirty");
    expect(versionTag("v0.1.0")).toBe("v0.1.0");
  });

  it("replaces what else a tag cannot hold and keeps it a tag", () => {
    expect(versionTag("v1/2 x")).toBe("v1_2_x");
    expect(versionTag(".hidden")).toBe("_hidden");
    expect(versionTag("v".repeat(200))).toHaveLength(128);
    expect(() => versionTag("")).toThrow();
  });
});
