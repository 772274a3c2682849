import { describe, expect, it } from "vitest";
import type { StoredVMPool } from "../../../controller/resources.js";
import { calculateNewVMNames, indexFromName, indexVMSpec, updatedPoolVM } from "./pool-vms.js";
import { poolFixture, poolVMFixture } from "./testing.js";

describe("calculateNewVMNames", () => {
  it.each([
    ["fills in name gaps", ["my-pool-1", "my-pool-3"], 3, ["my-pool-0", "my-pool-2", "my-pool-4"]],
    [
      "appends to the end when there is no gap",
      ["my-pool-0", "my-pool-1", "my-pool-2"],
      2,
      ["my-pool-3", "my-pool-4"],
    ],
  ])("%s", (_name, existing, count, expected) => {
    expect(calculateNewVMNames(count, "my-pool", (name) => existing.includes(name))).toEqual(expected);
  });
});

describe("indexFromName", () => {
  it("reads the number after the last dash", () => {
    expect(indexFromName("my-pool-12")).toBe(12);
    expect(indexFromName("my-pool")).toBeUndefined();
  });
});

/** A pool whose template has every kind of volume whose name gets an index. */
function poolWithVolumes(nameGeneration?: StoredVMPool["spec"]["nameGeneration"]): StoredVMPool {
  const pool = poolFixture(1);
  pool.spec.nameGeneration = nameGeneration;
  const vmSpec = pool.spec.virtualMachineTemplate.spec!;
  vmSpec.dataVolumeTemplates = [{ metadata: { name: "disk" }, spec: {} }];
  vmSpec.template.spec!.volumes = [
    { name: "dv", dataVolume: { name: "disk" } },
    { name: "pvc", persistentVolumeClaim: { claimName: "disk" } },
    { name: "other-pvc", persistentVolumeClaim: { claimName: "shared" } },
    { name: "cm", configMap: { name: "config" } },
    { name: "secret", secret: { secretName: "secret" } },
    {
      name: "nocloud",
      cloudInitNoCloud: { secretRef: { name: "user" }, networkDataSecretRef: { name: "net" } },
    },
    { name: "configdrive", cloudInitConfigDrive: { secretRef: { name: "user" } } },
  ];
  return pool;
}

const volumeNames = (pool: StoredVMPool, index: number) =>
  indexVMSpec(pool.spec, index).template.spec?.volumes?.map((volume) =>
    JSON.stringify(
      volume.dataVolume ??
        volume.persistentVolumeClaim ??
        volume.configMap ??
        volume.secret ??
        volume.cloudInitNoCloud ??
        volume.cloudInitConfigDrive,
    ),
  );

describe("indexVMSpec", () => {
  it("appends the index to the DataVolumes the VM creates, and to the volumes that use them", () => {
    const pool = poolWithVolumes();
    expect(indexVMSpec(pool.spec, 3).dataVolumeTemplates?.map((dv) => dv.metadata?.name)).toEqual(["disk-3"]);
    expect(volumeNames(pool, 3)).toEqual([
      '{"name":"disk-3"}',
      '{"claimName":"disk-3"}',
      '{"claimName":"shared"}',
      '{"name":"config"}',
      '{"secretName":"secret"}',
      '{"secretRef":{"name":"user"},"networkDataSecretRef":{"name":"net"}}',
      '{"secretRef":{"name":"user"}}',
    ]);
    expect(pool.spec.virtualMachineTemplate.spec?.dataVolumeTemplates?.[0]?.metadata?.name).toBe("disk");
  });

  it.each([undefined, false])(
    "leaves ConfigMap and Secret names alone when nameGeneration says %s",
    (append) => {
      const pool = poolWithVolumes({ appendIndexToConfigMapRefs: append, appendIndexToSecretRefs: append });
      expect(volumeNames(pool, 1)?.slice(3)).toEqual([
        '{"name":"config"}',
        '{"secretName":"secret"}',
        '{"secretRef":{"name":"user"},"networkDataSecretRef":{"name":"net"}}',
        '{"secretRef":{"name":"user"}}',
      ]);
    },
  );

  it("appends the index to ConfigMaps and to Secrets, cloud-init ones too, when nameGeneration asks", () => {
    const pool = poolWithVolumes({ appendIndexToConfigMapRefs: true, appendIndexToSecretRefs: true });
    expect(volumeNames(pool, 1)?.slice(3)).toEqual([
      '{"name":"config-1"}',
      '{"secretName":"secret-1"}',
      '{"secretRef":{"name":"user-1"},"networkDataSecretRef":{"name":"net-1"}}',
      '{"secretRef":{"name":"user-1"}}',
    ]);
  });

  it("treats ConfigMaps and Secrets separately", () => {
    const pool = poolWithVolumes({ appendIndexToConfigMapRefs: true });
    expect(volumeNames(pool, 2)?.slice(3, 5)).toEqual(['{"name":"config-2"}', '{"secretName":"secret"}']);
  });
});

describe("updatedPoolVM", () => {
  it("takes labels, annotations and spec from the template, keeps the rest and the firmware identity", () => {
    const pool = poolFixture(1);
    const vm = poolVMFixture(pool, 4);
    vm.metadata = { ...vm.metadata, uid: "vm-uid", labels: { stale: "label" }, finalizers: ["a"] };
    vm.spec.template.spec!.domain.firmware = {
      uuid: "the-uuid",
      serial: "the-serial",
      bootloader: { bios: {} },
    };
    pool.spec.virtualMachineTemplate.spec!.template.spec!.domain.memory = { guest: "256Mi" };
    const updated = updatedPoolVM(pool, vm, 4, "pool-7");
    expect(updated.metadata).toMatchObject({
      uid: "vm-uid",
      finalizers: ["a"],
      labels: { selector: "value", "kubevirt.io/vm-pool-revision-name": "pool-7" },
      annotations: { note: "from the template" },
    });
    expect(updated.spec.template.spec?.domain.memory).toEqual({ guest: "256Mi" });
    expect(updated.spec.template.spec?.domain.firmware).toEqual({ uuid: "the-uuid", serial: "the-serial" });
    expect(updated.spec.template.metadata?.labels?.["kubevirt.io/vm-pool-revision-name"]).toBe("pool-7");
  });
});
