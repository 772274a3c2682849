// The local cluster's storage manifests: local-path-provisioner as its v0.0.30 manifest installs it
// (with the two intended changes), and the local-block PVs over the recorded loop devices.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  binaryQuantity,
  localBlockObjects,
  localBlockPV,
  localBlockRecyclerRBAC,
  stalePVs,
} from "./local-block-storage.js";
import {
  DEFAULT_STORAGE_CLASS_ANNOTATION,
  localPathStorageObjects,
  localPathStorageOptions,
  provisionerConfig,
  renderLocalPathStorage,
} from "./local-path-storage.js";
import { layout } from "./layout.js";
import { nodeAgent } from "./nodes.js";
import { topology } from "./topology.js";

const l = layout("/repo", { HOME: "/home/u" });
const record = {
  node: "node02",
  index: 3,
  file: "/repo/.local/storage/node02/block/disk3.img",
  device: "/dev/loop7",
  sizeBytes: 2 * 1024 ** 3,
};

describe("local-path storage", () => {
  const options = localPathStorageOptions(l);

  it("maps each node to a folder under the cluster state, and no default path", () => {
    expect(JSON.parse(provisionerConfig(options))).toEqual({
      nodePathMap: [
        { node: "node01", paths: ["/repo/.local/storage/node01/local-path"] },
        { node: "node02", paths: ["/repo/.local/storage/node02/local-path"] },
      ],
    });
  });

  it("renders the manifest's objects in its order, the StorageClass default and WaitForFirstConsumer", () => {
    const docs = renderLocalPathStorage(options)
      .split("---\n")
      .map((doc) => parse(doc) as { kind: string });
    expect(docs.map((doc) => doc.kind)).toEqual([
      "Namespace",
      "ServiceAccount",
      "Role",
      "ClusterRole",
      "RoleBinding",
      "ClusterRoleBinding",
      "Deployment",
      "StorageClass",
      "ConfigMap",
    ]);
    const sc = localPathStorageObjects(options).find((o) => o.kind === "StorageClass");
    expect(sc).toMatchObject({
      metadata: { name: "local-path", annotations: { [DEFAULT_STORAGE_CLASS_ANNOTATION]: "true" } },
      provisioner: "rancher.io/local-path",
      volumeBindingMode: "WaitForFirstConsumer",
      reclaimPolicy: "Delete",
    });
  });

  it("runs the provisioner image with the manifest's command and the helper pod on busybox", () => {
    const objects = localPathStorageObjects(options);
    const deployment = objects.find((o) => o.kind === "Deployment") as {
      spec: { template: { spec: { containers: Array<{ image: string; command: string[] }> } } };
    };
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      image: "rancher/local-path-provisioner:v0.0.30",
      command: ["local-path-provisioner", "--debug", "start", "--config", "/etc/config/config.json"],
    });
    const config = objects.find((o) => o.kind === "ConfigMap") as { data: Record<string, string> };
    expect(Object.keys(config.data).sort()).toEqual(["config.json", "helperPod.yaml", "setup", "teardown"]);
    expect(parse(config.data["helperPod.yaml"] as string)).toMatchObject({
      spec: { containers: [{ name: "helper-pod", image: "busybox" }] },
    });
    expect(config.data["setup"]).toContain('mkdir -m 0777 -p "$VOL_DIR"');
    expect(config.data["teardown"]).toContain('rm -rf "$VOL_DIR"');
  });
});

describe("local-block storage", () => {
  it("renders a Block local PV pinned to its node over the device, retained", () => {
    expect(localBlockPV(record)).toMatchObject({
      metadata: { name: "local-block-node02-3" },
      spec: {
        capacity: { storage: "2Gi" },
        volumeMode: "Block",
        accessModes: ["ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        storageClassName: "local-block",
        local: { path: "/dev/loop7" },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node02"] }] },
            ],
          },
        },
      },
    });
    expect(localBlockObjects([record])[0]).toMatchObject({
      kind: "StorageClass",
      metadata: { name: "local-block" },
      provisioner: "kubernetes.io/no-provisioner",
      volumeBindingMode: "WaitForFirstConsumer",
    });
  });

  it("writes quantities in the largest binary unit that divides them", () => {
    expect(binaryQuantity(2 * 1024 ** 3)).toBe("2Gi");
    expect(binaryQuantity(1536 * 1024 ** 2)).toBe("1536Mi");
    expect(binaryQuantity(1000)).toBe("1000");
  });

  it("deletes a PV whose device changed, and refuses when it is Bound", () => {
    const wanted = [localBlockPV(record)];
    const existing = (path: string, phase: string) => [
      { metadata: { name: "local-block-node02-3" }, spec: { local: { path } }, status: { phase } },
    ];
    expect(stalePVs(existing("/dev/loop7", "Bound"), wanted)).toEqual([]);
    expect(stalePVs(existing("/dev/loop2", "Available"), wanted)).toEqual(["local-block-node02-3"]);
    expect(() => stalePVs(existing("/dev/loop2", "Bound"), wanted)).toThrow(
      /spec.local.path is \/dev\/loop2, the device is now \/dev\/loop7, and the volume is Bound/,
    );
  });

  it("lets each node agent recycle its own PVs: list, watch and create PVs, get and delete only its own", () => {
    const other = { ...record, node: "node01", index: 0, device: "/dev/loop0" };
    const objects = localBlockRecyclerRBAC([other, record]);
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name ?? ""}`)).toEqual([
      "ClusterRole/kubevirt-ts:local-block-recycler:node01",
      "ClusterRoleBinding/kubevirt-ts:local-block-recycler:node01",
      "ClusterRole/kubevirt-ts:local-block-recycler:node02",
      "ClusterRoleBinding/kubevirt-ts:local-block-recycler:node02",
    ]);
    expect(objects[2]).toMatchObject({
      rules: [
        { apiGroups: [""], resources: ["persistentvolumes"], verbs: ["list", "watch", "create"] },
        {
          apiGroups: [""],
          resources: ["persistentvolumes"],
          verbs: ["get", "delete"],
          resourceNames: ["local-block-node02-3"],
        },
      ],
    });
    expect(objects[3]).toMatchObject({
      roleRef: { kind: "ClusterRole", name: "kubevirt-ts:local-block-recycler:node02" },
      subjects: [{ kind: "User", name: "system:node:node02" }],
    });
    expect(localBlockObjects([record]).map((o) => o.kind)).toEqual([
      "StorageClass",
      "PersistentVolume",
      "ClusterRole",
      "ClusterRoleBinding",
    ]);
  });

  it("gives each node agent the loop-device record", () => {
    const args = nodeAgent(l, topology.nodes[0]).args;
    expect(args[args.indexOf("--loop-devices") + 1]).toBe("/repo/.local/loop-devices.json");
  });
});
