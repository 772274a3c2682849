import { describe, expect, it } from "vitest";
import { ApiError } from "./api-error.js";
import {
  aggregateErrors,
  recheckDeletionTimestamp,
  VirtualMachineControllerRefManager,
} from "./controller-ref-manager.js";
import { Selector } from "./label-selector.js";
import type { KubeObject, OwnerReference } from "./object.js";

const kind = { apiVersion: "kubevirt.io/v1", kind: "VirtualMachineInstanceReplicaSet" };
const rs: KubeObject = { metadata: { name: "rs", namespace: "default", uid: "rs-uid" } };
const ownedBy = (uid: string): OwnerReference => ({ ...kind, name: "x", uid, controller: true });

function vmi(name: string, labels: Record<string, string>, owner?: OwnerReference): KubeObject {
  return {
    metadata: { name, namespace: "default", uid: `${name}-uid`, labels, ownerReferences: owner && [owner] },
  };
}

interface Patch {
  name: string;
  patch: unknown;
}

function manager(options: { controller?: KubeObject; fail?: unknown; canAdopt?: () => Promise<void> } = {}) {
  const patches: Patch[] = [];
  const control = {
    patchVirtualMachineInstance: async (_namespace: string, name: string, patch: unknown) => {
      if (options.fail) throw options.fail;
      patches.push({ name, patch });
    },
    patchVirtualMachine: async (_namespace: string, name: string, patch: unknown) => {
      if (options.fail) throw options.fail;
      patches.push({ name, patch });
    },
  };
  const selector = Selector.fromLabelSelector({ matchLabels: { app: "web" } });
  const refs = new VirtualMachineControllerRefManager(
    control,
    options.controller ?? rs,
    selector,
    kind,
    options.canAdopt,
  );
  return { refs, patches };
}

describe("claimVirtualMachineInstances", () => {
  it("keeps owned matching VMIs, adopts matching orphans, releases owned non-matching ones", async () => {
    const { refs, patches } = manager();
    const { claimed, errors } = await refs.claimVirtualMachineInstances([
      vmi("owned", { app: "web" }, ownedBy("rs-uid")),
      vmi("orphan", { app: "web" }),
      vmi("detached", { app: "db" }, ownedBy("rs-uid")),
      vmi("foreign", { app: "web" }, ownedBy("other")),
      vmi("unrelated", { app: "db" }),
    ]);
    expect(errors).toEqual([]);
    expect(claimed.map((obj) => obj.metadata?.name)).toEqual(["owned", "orphan"]);
    expect(patches).toEqual([
      {
        name: "orphan",
        patch: {
          metadata: {
            ownerReferences: [
              { ...kind, name: "rs", uid: "rs-uid", controller: true, blockOwnerDeletion: true },
            ],
            uid: "orphan-uid",
          },
        },
      },
      { name: "detached", patch: { metadata: { ownerReferences: [] } } },
    ]);
  });

  it("neither adopts nor releases while the controller is being deleted", async () => {
    const deleting = { metadata: { ...rs.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
    const { refs, patches } = manager({ controller: deleting });
    const { claimed } = await refs.claimVirtualMachineInstances([
      vmi("orphan", { app: "web" }),
      vmi("detached", { app: "db" }, ownedBy("rs-uid")),
    ]);
    expect(claimed).toEqual([]);
    expect(patches).toEqual([]);
  });

  it("does not adopt an orphan that is being deleted", async () => {
    const { refs, patches } = manager();
    const orphan = vmi("orphan", { app: "web" });
    orphan.metadata = { ...orphan.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    expect((await refs.claimVirtualMachineInstances([orphan])).claimed).toEqual([]);
    expect(patches).toEqual([]);
  });

  it("asks canAdopt once per manager, and a refusal fails every adoption", async () => {
    let asked = 0;
    const { refs, patches } = manager({
      canAdopt: async () => {
        asked++;
        throw new Error("default/rs has just been deleted at 2026-01-01T00:00:00Z");
      },
    });
    const { claimed, errors } = await refs.claimVirtualMachineInstances([
      vmi("a", { app: "web" }),
      vmi("b", { app: "web" }),
    ]);
    expect(asked).toBe(1);
    expect(claimed).toEqual([]);
    expect(patches).toEqual([]);
    expect(errors.map((err) => (err as Error).message)).toEqual([
      "can't adopt VirtualMachineInstance default/a (a-uid): default/rs has just been deleted at 2026-01-01T00:00:00Z",
      "can't adopt VirtualMachineInstance default/b (b-uid): default/rs has just been deleted at 2026-01-01T00:00:00Z",
    ]);
  });

  it("a VMI gone meanwhile is neither claimed nor an error", async () => {
    const { refs } = manager({ fail: new ApiError(404, "NotFound", "not found") });
    const result = await refs.claimVirtualMachineInstances([
      vmi("orphan", { app: "web" }),
      vmi("detached", { app: "db" }, ownedBy("rs-uid")),
    ]);
    expect(result).toEqual({ claimed: [], errors: [] });
  });

  it("a failed adoption is reported and the VMI not claimed", async () => {
    const conflict = new ApiError(409, "Conflict", "Precondition failed");
    const { refs } = manager({ fail: conflict });
    expect(await refs.claimVirtualMachineInstances([vmi("orphan", { app: "web" })])).toEqual({
      claimed: [],
      errors: [conflict],
    });
  });

  it("a release the server finds invalid counts as done", async () => {
    const { refs } = manager({ fail: new ApiError(422, "Invalid", "invalid") });
    const result = await refs.claimVirtualMachineInstances([
      vmi("detached", { app: "db" }, ownedBy("rs-uid")),
    ]);
    expect(result).toEqual({ claimed: [], errors: [] });
  });
});

describe("releaseDetachedVirtualMachines", () => {
  const vm = (name: string, labels: Record<string, string>, owner?: OwnerReference): KubeObject => ({
    metadata: {
      ...vmi(name, labels, owner).metadata,
      finalizers: ["kubevirt.io/virtualMachineControllerFinalize", "pool.kubevirt.io/finalizer"],
    },
  });

  it("keeps owned matching VMs, releases owned non-matching ones with the pool finalizer, adopts nothing", async () => {
    const { refs, patches } = manager();
    const { owned, errors } = await refs.releaseDetachedVirtualMachines([
      vm("owned", { app: "web" }, ownedBy("rs-uid")),
      vm("orphan", { app: "web" }),
      vm("detached", { app: "db" }, ownedBy("rs-uid")),
      vm("foreign", { app: "web" }, ownedBy("other")),
    ]);
    expect(errors).toEqual([]);
    expect(owned.map((obj) => obj.metadata?.name)).toEqual(["owned"]);
    expect(patches).toEqual([
      {
        name: "detached",
        patch: {
          metadata: { ownerReferences: [], finalizers: ["kubevirt.io/virtualMachineControllerFinalize"] },
        },
      },
    ]);
  });

  it("does not release while the controller is being deleted", async () => {
    const deleting = { metadata: { ...rs.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
    const { refs, patches } = manager({ controller: deleting });
    const result = await refs.releaseDetachedVirtualMachines([
      vm("detached", { app: "db" }, ownedBy("rs-uid")),
    ]);
    expect(result).toEqual({ owned: [], errors: [] });
    expect(patches).toEqual([]);
  });

  it("reports a failed release, but not a VM that is gone", async () => {
    const conflict = new ApiError(409, "Conflict", "conflict");
    const failing = manager({ fail: conflict });
    expect(
      await failing.refs.releaseDetachedVirtualMachines([vm("detached", { app: "db" }, ownedBy("rs-uid"))]),
    ).toEqual({ owned: [], errors: [conflict] });
    const gone = manager({ fail: new ApiError(404, "NotFound", "not found") });
    expect(
      await gone.refs.releaseDetachedVirtualMachines([vm("detached", { app: "db" }, ownedBy("rs-uid"))]),
    ).toEqual({ owned: [], errors: [] });
  });
});

describe("recheckDeletionTimestamp", () => {
  it("passes for a live object, fails for one being deleted or that cannot be read", async () => {
    await expect(recheckDeletionTimestamp(async () => rs)()).resolves.toBeUndefined();
    const deleting = { metadata: { ...rs.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
    await expect(recheckDeletionTimestamp(async () => deleting)()).rejects.toThrow(
      "default/rs has just been deleted at 2026-01-01T00:00:00Z",
    );
    await expect(
      recheckDeletionTimestamp(async () => {
        throw new Error("connection refused");
      })(),
    ).rejects.toThrow("can't recheck DeletionTimestamp: connection refused");
  });
});

describe("aggregateErrors", () => {
  it("is nothing, the one error, or all distinct messages in brackets", () => {
    const one = new Error("a");
    expect(aggregateErrors([])).toBeUndefined();
    expect(aggregateErrors([one])).toBe(one);
    expect(aggregateErrors([one, new Error("b"), new Error("a")])?.message).toBe("[a, b]");
  });
});
