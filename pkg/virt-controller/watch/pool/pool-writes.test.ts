import { describe, expect, it } from "vitest";
import { KubeClient } from "../../../controller/client.js";
import { FakeApiServer } from "../../../controller/testing/fake-apiserver.js";
import type { StoredVM } from "../../../controller/resources.js";
import {
  VirtualMachineControllerFinalizer,
  VirtualMachinePoolControllerFinalizer,
} from "../../../util/constants.js";
import type { Reporter } from "../common/reporter.js";
import { PoolWrites } from "./pool-writes.js";
import { poolFixture, poolVMFixture, Tables } from "./testing.js";

describe("PoolWrites", () => {
  it("removes the pool finalizer from a VM whose finalizers changed since it was read", async () => {
    const server = new FakeApiServer();
    const writes = new PoolWrites(new KubeClient(server), {} as Reporter);
    const vm = poolVMFixture(poolFixture(1), 0);
    vm.metadata!.finalizers = [VirtualMachinePoolControllerFinalizer, VirtualMachineControllerFinalizer];
    const read = server.seed(Tables.vms, vm);
    // The VM controller drops its own finalizer after the pool controller read the VM.
    server.seed(Tables.vms, {
      ...read,
      metadata: { ...read.metadata, finalizers: [VirtualMachinePoolControllerFinalizer] },
    });

    await writes.removeVMFinalizer(read);
    const stored = server.get<StoredVM>(Tables.vms, read.metadata!.namespace!, read.metadata!.name!);
    expect(stored?.metadata?.finalizers ?? []).toEqual([]);
  });

  it("gives up on a VM that is gone", async () => {
    const server = new FakeApiServer();
    const writes = new PoolWrites(new KubeClient(server), {} as Reporter);
    const vm = poolVMFixture(poolFixture(1), 0);
    vm.metadata!.finalizers = [VirtualMachinePoolControllerFinalizer];
    await expect(writes.removeVMFinalizer(vm)).resolves.toBeUndefined();
  });
});
