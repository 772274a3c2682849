import { describe, expect, it } from "vitest";
import { CAManager, type ConfigMapObject } from "./ca-manager.js";
import { caBundleOf, commonNameOf, verifyCommonName } from "./tls.js";

const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

describe("verifyCommonName", () => {
  it.each([
    ["kubevirt.io:system:client:virt-handler", "client", ["virt-handler"], undefined],
    ["kubevirt.io:system:node:virt-handler", "node", ["virt-handler"], undefined],
    [
      "kubevirt.io:system:client:migration",
      "client",
      ["virt-handler"],
      "common name is invalid, got kubevirt.io:system:client:migration",
    ],
    [
      "kubevirt.io:system:node:virt-handler",
      "client",
      ["virt-handler"],
      "common name is invalid, got kubevirt.io:system:node:virt-handler",
    ],
    [undefined, "client", ["virt-handler"], "common name is invalid, got "],
  ] as const)("%s as %s", (commonName, role, types, expected) => {
    expect(verifyCommonName(commonName, role, types)).toBe(expected);
  });

  it("reads the first CN when the subject repeats it", () => {
    expect(commonNameOf({ subject: { CN: ["a", "b"] } as never })).toBe("a");
    expect(commonNameOf(undefined)).toBeUndefined();
  });
});

describe("caBundleOf", () => {
  it.each([
    [undefined, "configmap kubevirt-ca not found. Unable to detect the KubeVirt CA"],
    [{}, "ca-bundle not found in configmap kubevirt/kubevirt-ca"],
    [{ data: { "ca-bundle": "" } }, "no certificate in ca-bundle of configmap kubevirt/kubevirt-ca"],
    [{ data: { "ca-bundle": 7 } }, "ca-bundle not found in configmap kubevirt/kubevirt-ca"],
  ])("refuses %j", (configMap, message) => {
    expect(caBundleOf(configMap, "kubevirt", "kubevirt-ca")).toEqual({ ok: false, message });
  });

  it("reads the bundle", () => {
    expect(caBundleOf({ data: { "ca-bundle": PEM } }, "kubevirt", "kubevirt-ca")).toEqual({
      ok: true,
      pem: PEM,
    });
  });
});

describe("CAManager", () => {
  function fakeInformer() {
    let object: ConfigMapObject | undefined;
    const callbacks: Array<(obj: ConfigMapObject) => void> = [];
    return {
      set(next: ConfigMapObject | undefined) {
        object = next;
        for (const callback of callbacks) callback(next ?? {});
      },
      onChange: (callback: (obj: ConfigMapObject) => void) => {
        callbacks.push(callback);
        return () => undefined;
      },
      getByName: () => object,
    };
  }

  it("follows the ConfigMap, keeps the last good bundle, and says when it changes", async () => {
    const informer = fakeInformer();
    const errors: string[] = [];
    const manager = new CAManager(informer, "kubevirt", "kubevirt-ca", (message) => errors.push(message));
    expect(manager.current()).toBeUndefined();
    const seen: string[] = [];
    manager.onChange((pem) => seen.push(pem));
    const ready = manager.ready(new AbortController().signal);
    informer.set({ metadata: { name: "kubevirt-ca" }, data: { "ca-bundle": PEM } });
    expect(await ready).toBe(PEM);
    informer.set({ metadata: { name: "kubevirt-ca" }, data: { "ca-bundle": PEM } });
    informer.set(undefined);
    expect(manager.current()).toBe(PEM);
    informer.set({ metadata: { name: "kubevirt-ca" }, data: { "ca-bundle": PEM + PEM } });
    expect(seen).toEqual([PEM, PEM + PEM]);
    expect(errors.length).toBeGreaterThan(0);
  });

  it("gives up waiting when the signal aborts", async () => {
    const controller = new AbortController();
    const ready = new CAManager(fakeInformer(), "kubevirt", "kubevirt-ca").ready(controller.signal);
    controller.abort();
    expect(await ready).toBeUndefined();
  });
});
