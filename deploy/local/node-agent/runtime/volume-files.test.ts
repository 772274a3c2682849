import { describe, expect, it } from "vitest";
import { configMapFiles, downwardApiFiles, projectedFiles, secretFiles } from "./volume-files.js";
import type { FileProjection, VolumeDataLookup } from "./volume-files.js";

const lookup: VolumeDataLookup = {
  configMap: (name) =>
    name === "kube-root-ca.crt"
      ? { data: { "ca.crt": "CA PEM" } }
      : name === "settings"
        ? { data: { a: "alpha", b: "beta" }, binaryData: { bin: Buffer.from([0, 1, 2]).toString("base64") } }
        : undefined,
  secret: (name) =>
    name === "certs" ? { data: { "tls.crt": Buffer.from("CERT").toString("base64") } } : undefined,
  downwardValue: (item) => (item.fieldRef?.fieldPath === "metadata.namespace" ? "kubevirt" : "?"),
  serviceAccountToken: (source) => `token-for-${source.audience ?? "default"}`,
};

function summary(files: FileProjection[]): Array<[string, string, string]> {
  return files.map((file) => [file.path, file.data.toString("latin1"), file.mode.toString(8)]);
}

describe("configMapFiles", () => {
  it("writes every key with the default mode 0644 when there are no items", () => {
    expect(summary(configMapFiles({ name: "settings" }, lookup))).toEqual([
      ["a", "alpha", "644"],
      ["b", "beta", "644"],
      ["bin", "\u0000\u0001\u0002", "644"],
    ]);
  });

  it("maps items to paths with their own mode, else the volume's defaultMode", () => {
    const files = configMapFiles(
      {
        name: "settings",
        defaultMode: 0o400,
        items: [
          { key: "a", path: "dir/first" },
          { key: "b", path: "second", mode: 0o755 },
        ],
      },
      lookup,
    );
    expect(summary(files)).toEqual([
      ["dir/first", "alpha", "400"],
      ["second", "beta", "755"],
    ]);
  });

  it.each([
    [
      { name: "settings", items: [{ key: "nope", path: "x" }] },
      "configmap references non-existent config key: nope",
    ],
    [{ name: "absent" }, 'configmap "absent" not found'],
  ])("fails as kubelet does for %j", (source, message) => {
    expect(() => configMapFiles(source, lookup)).toThrow(message);
  });

  it("skips what is missing when the source is optional", () => {
    expect(configMapFiles({ name: "absent", optional: true }, lookup)).toEqual([]);
    expect(
      configMapFiles({ name: "settings", optional: true, items: [{ key: "nope", path: "x" }] }, lookup),
    ).toEqual([]);
  });
});

describe("secretFiles", () => {
  it("decodes base64 data", () => {
    expect(summary(secretFiles({ secretName: "certs" }, lookup))).toEqual([["tls.crt", "CERT", "644"]]);
  });

  it("words a missing key and a missing secret as kubelet does", () => {
    expect(() =>
      secretFiles({ secretName: "certs", items: [{ key: "tls.key", path: "k" }] }, lookup),
    ).toThrow("references non-existent secret key: tls.key");
    expect(() => secretFiles({ secretName: "absent" }, lookup)).toThrow('secret "absent" not found');
  });
});

describe("downwardApiFiles", () => {
  it("writes the caller's resolved values", () => {
    const files = downwardApiFiles(
      { items: [{ path: "ns", fieldRef: { fieldPath: "metadata.namespace" } }] },
      lookup,
    );
    expect(summary(files)).toEqual([["ns", "kubevirt", "644"]]);
  });
});

describe("projectedFiles", () => {
  it("builds the service-account volume kubelet gives every pod", () => {
    const files = projectedFiles(
      {
        defaultMode: 0o644,
        sources: [
          { serviceAccountToken: { path: "token", expirationSeconds: 3607 } },
          { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
          { downwardAPI: { items: [{ path: "namespace", fieldRef: { fieldPath: "metadata.namespace" } }] } },
        ],
      },
      lookup,
    );
    expect(summary(files)).toEqual([
      ["token", "token-for-default", "644"],
      ["ca.crt", "CA PEM", "644"],
      ["namespace", "kubevirt", "644"],
    ]);
  });

  it("applies the projected volume's defaultMode to every source", () => {
    const files = projectedFiles({ defaultMode: 0o440, sources: [{ secret: { name: "certs" } }] }, lookup);
    expect(summary(files)).toEqual([["tls.crt", "CERT", "440"]]);
  });

  it("rejects a projection it does not know", () => {
    expect(() => projectedFiles({ sources: [{}] }, lookup)).toThrow(/no supported projection/);
  });
});
