import { describe, expect, it } from "vitest";
import { KubeClient } from "./client.js";
import { finalizerPatch, hasFinalizer, setFinalizer } from "./finalizers.js";
import type { KubeObject } from "./object.js";
import { virtualMachinesGVR } from "./resources.js";
import { FakeApiServer } from "./testing/fake-apiserver.js";

const withFinalizers = (finalizers?: string[]) => ({ metadata: { name: "x", finalizers } });

describe("finalizerPatch", () => {
  it("adds to a list it tests first, or adds the list when there is none", () => {
    expect(finalizerPatch(withFinalizers(["a"]), "b", true)).toEqual([
      { op: "test", path: "/metadata/finalizers", value: ["a"] },
      { op: "replace", path: "/metadata/finalizers", value: ["a", "b"] },
    ]);
    expect(finalizerPatch(withFinalizers(), "b", true)).toEqual([
      { op: "add", path: "/metadata/finalizers", value: ["b"] },
    ]);
  });

  it("removes only the one finalizer, and changes nothing when the object already agrees", () => {
    expect(finalizerPatch(withFinalizers(["a", "b"]), "b", false)).toEqual([
      { op: "test", path: "/metadata/finalizers", value: ["a", "b"] },
      { op: "replace", path: "/metadata/finalizers", value: ["a"] },
    ]);
    expect(finalizerPatch(withFinalizers(["a"]), "b", false)).toBeUndefined();
    expect(finalizerPatch(withFinalizers(["b"]), "b", true)).toBeUndefined();
    expect(hasFinalizer(withFinalizers(["b"]), "b")).toBe(true);
  });
});

describe("setFinalizer", () => {
  const server = () => {
    const fake = new FakeApiServer();
    const client = new KubeClient(fake).resource<KubeObject>(virtualMachinesGVR);
    const stored = fake.seed("kubevirt.io/virtualmachines", {
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachine",
      metadata: { name: "vm", namespace: "default", finalizers: ["a", "b"] },
    });
    return { fake, client, stored };
  };

  it("retries on a fresh read when the list changed since it was read", async () => {
    const { fake, client, stored } = server();
    fake.seed("kubevirt.io/virtualmachines", {
      ...stored,
      metadata: { ...stored.metadata, finalizers: ["b"] },
    });
    const written = await setFinalizer(client, stored, "b", false);
    expect(written.metadata?.finalizers ?? []).toEqual([]);
  });

  it("writes nothing when the object already agrees", async () => {
    const { fake, client, stored } = server();
    const writes = fake.writes.length;
    expect(await setFinalizer(client, stored, "a", true)).toBe(stored);
    expect(fake.writes.length).toBe(writes);
  });
});
