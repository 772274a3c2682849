import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../../controller/object.js";
import type { KubeVirtCR } from "../../cluster.js";
import { COMMON_INSTANCETYPE_RESOURCES } from "../../resources.js";
import { FakeCluster } from "../../testing/fake-cluster.js";
import { testContext } from "../../testing/reconcile-context.js";
import { newClusterInstancetypes, newClusterPreferences } from "../generate/components/instancetypes.js";
import {
  commonInstancetypesDeploymentEnabled,
  deleteInstancetypesNotInInstallStrategy,
  syncCommonInstancetypes,
} from "./instancetypes.js";

const { clusterInstancetypes: IT, clusterPreferences: PREF } = COMMON_INSTANCETYPE_RESOURCES;

const kv = (enabled?: boolean): KubeVirtCR => ({
  metadata: { name: "kubevirt", namespace: "kubevirt", generation: 4 },
  spec: enabled === undefined ? {} : { configuration: { commonInstancetypesDeployment: { enabled } } },
  status: { targetKubeVirtVersion: "v1", targetKubeVirtRegistry: "reg", targetDeploymentID: "id-1" },
});

// Two of each keep the write lists readable; the full bundle is the strategy's.
const strategy = {
  instancetypes: newClusterInstancetypes().filter((i) =>
    ["u1.medium", "cx1.large"].includes(i.metadata?.name ?? ""),
  ),
  preferences: newClusterPreferences().filter((p) =>
    ["fedora", "windows.11"].includes(p.metadata?.name ?? ""),
  ),
};

type Bundled = KubeObject & { spec: Record<string, unknown> };

async function deployed(enabled?: boolean) {
  const cluster = new FakeCluster();
  const ctx = testContext(cluster, kv(enabled));
  await syncCommonInstancetypes(ctx, strategy);
  return { cluster, ctx };
}

describe("common instancetypes deployment", () => {
  it("is on unless the CR turns it off, as upstream's default", () => {
    expect(commonInstancetypesDeploymentEnabled(kv())).toBe(true);
    expect(commonInstancetypesDeploymentEnabled(kv(true))).toBe(true);
    expect(commonInstancetypesDeploymentEnabled(kv(false))).toBe(false);
  });

  it("creates the instance types and preferences with the operator's labels and annotations", async () => {
    const { cluster } = await deployed();
    expect(cluster.takeWrites()).toEqual([
      "create virtualmachineclusterinstancetypes cx1.large",
      "create virtualmachineclusterinstancetypes u1.medium",
      "create virtualmachineclusterpreferences fedora",
      "create virtualmachineclusterpreferences windows.11",
    ]);
    const u1 = cluster.object<Bundled>(IT, "u1.medium");
    expect(u1?.metadata?.labels).toMatchObject({
      "app.kubernetes.io/component": "kubevirt",
      "app.kubernetes.io/managed-by": "virt-operator",
      "instancetype.kubevirt.io/vendor": "kubevirt.io",
      "instancetype.kubevirt.io/size": "medium",
    });
    expect(u1?.metadata?.annotations).toMatchObject({
      "kubevirt.io/install-strategy-version": "v1",
      "kubevirt.io/install-strategy-registry": "reg",
      "kubevirt.io/install-strategy-identifier": "id-1",
      "kubevirt.io/generation": "4",
      "instancetype.kubevirt.io/displayName": "General Purpose",
    });
    expect(u1?.spec).toEqual({ cpu: { guest: 1 }, memory: { guest: "4Gi" } });
    expect(cluster.object<Bundled>(PREF, "fedora")?.metadata?.labels).toMatchObject({
      "app.kubernetes.io/managed-by": "virt-operator",
      "instancetype.kubevirt.io/os-type": "linux",
    });
  });

  it("labels them with the product's version, name and component when the CR names them", async () => {
    const cluster = new FakeCluster();
    const cr = kv();
    cr.spec = { productVersion: "4.20.0", productName: "acme-virt", productComponent: "acme-component" };
    await syncCommonInstancetypes(testContext(cluster, cr), strategy);
    expect(cluster.object(IT, "u1.medium")?.metadata?.labels).toMatchObject({
      "app.kubernetes.io/version": "4.20.0",
      "app.kubernetes.io/part-of": "acme-virt",
      "app.kubernetes.io/component": "acme-component",
    });
  });

  it("writes nothing when the cluster already has them as desired", async () => {
    const { cluster, ctx } = await deployed();
    cluster.takeWrites();
    await syncCommonInstancetypes(ctx, strategy);
    expect(cluster.takeWrites()).toEqual([]);
  });

  it.each([
    [
      "annotations",
      (o: Bundled) => ((o.metadata ??= {}).annotations = { ...o.metadata.annotations, extra: "x" }),
    ],
    ["labels", (o: Bundled) => ((o.metadata ??= {}).labels = { ...o.metadata.labels, extra: "x" })],
    ["spec", (o: Bundled) => (o.spec = { ...o.spec, cpu: { guest: 7 } })],
  ])("replaces an instance type and a preference whose %s someone changed", async (_, change) => {
    const { cluster, ctx } = await deployed();
    for (const [gvr, name] of [
      [IT, "u1.medium"],
      [PREF, "fedora"],
    ] as const) {
      const obj = structuredClone(cluster.object<Bundled>(gvr, name) as Bundled);
      change(obj);
      await cluster.update(gvr, obj);
    }
    cluster.takeWrites();
    await syncCommonInstancetypes(ctx, strategy);
    expect(cluster.takeWrites()).toEqual([
      "update virtualmachineclusterinstancetypes u1.medium",
      "update virtualmachineclusterpreferences fedora",
    ]);
    const u1 = cluster.object<Bundled>(IT, "u1.medium");
    expect(u1?.spec).toEqual({ cpu: { guest: 1 }, memory: { guest: "4Gi" } });
    expect(u1?.metadata?.labels).not.toHaveProperty("extra");
    expect(u1?.metadata?.annotations).not.toHaveProperty("extra");
  });

  it("takes over an object of a bundle name someone else created", async () => {
    const cluster = new FakeCluster();
    cluster.seed(IT, {
      metadata: { name: "u1.medium" },
      spec: { cpu: { guest: 3 }, memory: { guest: "1Gi" } },
    });
    await syncCommonInstancetypes(testContext(cluster, kv()), strategy);
    expect(cluster.takeWrites()).toContain("update virtualmachineclusterinstancetypes u1.medium");
    expect(cluster.object<Bundled>(IT, "u1.medium")?.metadata?.labels).toMatchObject({
      "app.kubernetes.io/managed-by": "virt-operator",
    });
  });

  it("names the object in its error when a create fails", async () => {
    class DenyingCluster extends FakeCluster {
      override create<T extends KubeObject>(): Promise<T> {
        return Promise.reject(new Error("denied"));
      }
    }
    await expect(syncCommonInstancetypes(testContext(new DenyingCluster(), kv()), strategy)).rejects.toThrow(
      "unable to create instancetype cx1.large: denied",
    );
  });

  it("deletes every deployed one the operator manages when the CR turns the deployment off", async () => {
    const { cluster } = await deployed();
    // A user's own instance type, without the operator's labels, stays.
    cluster.seed(IT, { metadata: { name: "mine" }, spec: { cpu: { guest: 1 }, memory: { guest: "1Gi" } } });
    cluster.takeWrites();
    await syncCommonInstancetypes(testContext(cluster, kv(false)), strategy);
    expect(cluster.takeWrites().sort()).toEqual([
      "delete virtualmachineclusterinstancetypes cx1.large",
      "delete virtualmachineclusterinstancetypes u1.medium",
      "delete virtualmachineclusterpreferences fedora",
      "delete virtualmachineclusterpreferences windows.11",
    ]);
    expect(cluster.all(IT).map((o) => o.metadata?.name)).toEqual(["mine"]);
  });

  it("deletes nothing when none of the bundle's names was deployed", async () => {
    const cluster = new FakeCluster();
    cluster.seed(IT, {
      metadata: {
        name: "other",
        labels: {
          "app.kubernetes.io/managed-by": "virt-operator",
          "app.kubernetes.io/component": "kubevirt",
        },
      },
      spec: { cpu: { guest: 1 }, memory: { guest: "1Gi" } },
    });
    await syncCommonInstancetypes(testContext(cluster, kv(false)), strategy);
    expect(cluster.takeWrites()).toEqual([]);
  });

  it("removes the operator's instance types and preferences the bundle no longer has", async () => {
    const { cluster, ctx } = await deployed();
    const older = {
      instancetypes: strategy.instancetypes.slice(1),
      preferences: strategy.preferences.slice(0, 1),
    };
    cluster.seed(PREF, { metadata: { name: "users-own" }, spec: {} });
    cluster.takeWrites();
    await deleteInstancetypesNotInInstallStrategy(ctx, older);
    expect(cluster.takeWrites()).toEqual([
      "delete virtualmachineclusterinstancetypes cx1.large",
      "delete virtualmachineclusterpreferences windows.11",
    ]);
  });
});
