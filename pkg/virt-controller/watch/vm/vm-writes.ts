// The writes the VM controller makes to a VM and its VMI besides creating and deleting the VMI: its
// finalizer, start requests, the switch to Always, the legacy firmware UUID, the ControllerRevision a
// VMI starts from, and the VMI's generation annotation. Each is a guarded patch or an optimistic update.
import { isAlreadyExists, isNotFound } from "../../../controller/api-error.js";
import type { KubeClient, ResourceClient } from "../../../controller/client.js";
import { setFinalizer } from "../../../controller/finalizers.js";
import { ControllerUIDIndex } from "../../../controller/indexers.js";
import type { Informer } from "../../../controller/informer.js";
import { calculateLegacyUUID } from "../../../defaults/firmware-uuid.js";
import { VirtualMachineControllerFinalizer } from "../../../util/constants.js";
import {
  controllerRevisionsGVR,
  virtualMachineInstancesGVR,
  virtualMachinesGVR,
  type StoredVM,
  type StoredVMI,
} from "../../../controller/resources.js";
import { PatchSet } from "../../../apimachinery/patch/patch.js";
import { SyncError } from "../../../controller/sync-error.js";
import { errorMessage } from "../../../util/error-message.js";
import {
  bumpedGeneration,
  generationAnnotationPatch,
  generationFromRevision,
  vmiGeneration,
} from "./vm-generation.js";
import { RunStrategy, StateChangeAction } from "./vm-requests.js";
import { newVMRevision, revisionName, revisionNamePrefix, type ControllerRevision } from "./vm-revision.js";

export class VMWrites {
  private readonly vmClient: ResourceClient<StoredVM>;
  private readonly vmiClient: ResourceClient<StoredVMI>;
  private readonly revisionClient: ResourceClient<ControllerRevision>;

  constructor(
    client: KubeClient,
    /** ControllerRevisions, indexed by ControllerUIDIndex. */
    private readonly revisions: Informer<ControllerRevision>,
  ) {
    this.vmClient = client.resource<StoredVM>(virtualMachinesGVR);
    this.vmiClient = client.resource<StoredVMI>(virtualMachineInstancesGVR);
    this.revisionClient = client.resource<ControllerRevision>(controllerRevisionsGVR);
  }

  /** RerunOnFailure: after stopping a failed VMI, a start request brings it back. */
  async addStartRequest(vm: StoredVM): Promise<StoredVM> {
    const requests = [...(vm.status?.stateChangeRequests ?? []), { action: StateChangeAction.Start }];
    // A VM never reported on has no status to add the requests to yet.
    const patch = vm.status
      ? new PatchSet().add("/status/stateChangeRequests", requests)
      : new PatchSet().add("/status", { stateChangeRequests: requests });
    try {
      return await this.vmClient.patchStatus(
        vm.metadata?.namespace ?? "",
        vm.metadata?.name ?? "",
        "json",
        patch.toJSON(),
      );
    } catch (err) {
      throw new SyncError(`failed to patch VM with start action: ${errorMessage(err)}`, "FailedDelete");
    }
  }

  /** A start request on a Halted VM (virtctl start --paused) switches it to Always. */
  async switchToAlways(vm: StoredVM): Promise<StoredVM> {
    const next = structuredClone(vm);
    if (next.spec.runStrategy !== undefined && next.spec.runStrategy !== null)
      next.spec.runStrategy = RunStrategy.Always;
    else next.spec.running = true;
    try {
      return await this.vmClient.update(next);
    } catch (err) {
      throw new SyncError(`Failure while starting VMI: ${errorMessage(err)}`, "FailedCreate");
    }
  }

  /** Adds (or, for a VM being deleted, removes) the finalizer that lets the VM see its VMI go. */
  async setControllerFinalizer(vm: StoredVM, present: boolean): Promise<StoredVM> {
    return setFinalizer(this.vmClient, vm, VirtualMachineControllerFinalizer, present);
  }

  /** The revision the VMI is started from: the VM's spec at its current generation; older ones go. */
  async ensureRevision(vm: StoredVM): Promise<string> {
    const name = revisionName(vm);
    const owned = this.revisions.byIndex(ControllerUIDIndex, vm.metadata?.uid ?? "");
    let current = false;
    for (const revision of owned) {
      if (!(revision.metadata?.name ?? "").startsWith(revisionNamePrefix(vm.metadata?.uid ?? ""))) continue;
      if (revision.revision === (vm.metadata?.generation ?? 0)) {
        current = true;
        continue;
      }
      await this.revisionClient
        .delete(revision.metadata?.namespace ?? "", revision.metadata?.name ?? "")
        .catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
    }
    if (!current) {
      await this.revisionClient.create(newVMRevision(vm)).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
    }
    return name;
  }

  /** Moves the VMI's generation annotation forward when only non-template parts of the VM changed. */
  async bumpGeneration(vm: StoredVM, vmi: StoredVMI): Promise<StoredVMI> {
    const revision = this.revisions.getByName(
      vmi.metadata?.namespace ?? "",
      vmi.status?.virtualMachineRevisionName ?? "",
    );
    const generation = bumpedGeneration(vm, vmi, revision);
    if (generation === undefined) return vmi;
    return this.patchVMI(vmi, generationAnnotationPatch(vmi, generation));
  }

  patchVMI(vmi: StoredVMI, patch: PatchSet): Promise<StoredVMI> {
    return this.vmiClient.patch(
      vmi.metadata?.namespace ?? "",
      vmi.metadata?.name ?? "",
      "json",
      patch.toJSON(),
    );
  }

  /** VMs created before firmware UUIDs were stored get the name-derived one written into their template. */
  async ensureFirmwareUUID(vm: StoredVM): Promise<StoredVM> {
    const domain = vm.spec.template?.spec?.domain;
    if (!domain || domain.firmware?.uuid) return vm;
    const firmware = { ...domain.firmware, uuid: calculateLegacyUUID(vm.metadata?.name ?? "") };
    const patch = new PatchSet().testAndSet("/spec/template/spec/domain/firmware", domain.firmware, firmware);
    try {
      return await this.vmClient.patch(
        vm.metadata?.namespace ?? "",
        vm.metadata?.name ?? "",
        "json",
        patch.toJSON(),
      );
    } catch (err) {
      throw new SyncError(
        `error encountered when trying to patch VM firmware: ${errorMessage(err)}`,
        "FirmwareUUIDError",
      );
    }
  }

  /** The VM generation the VMI runs; back-filled from its revision name onto older VMIs. */
  async observedGeneration(vmi: StoredVMI): Promise<number | undefined> {
    const annotated = vmiGeneration(vmi);
    if (annotated !== undefined) return annotated;
    const fromRevision = generationFromRevision(vmi);
    if (fromRevision === undefined) return undefined;
    await this.patchVMI(vmi, generationAnnotationPatch(vmi, fromRevision));
    return fromRevision;
  }
}
