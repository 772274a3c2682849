// Upstream pkg/instancetype/upgrade: a ControllerRevision recorded in a VM's status whose stored object
// is not labelled with the latest instancetype.kubevirt.io version is stored again, as a fresh revision
// with the current name and labels; the status is pointed at it (a JSON patch testing the old name) and
// the old revision is deleted, a failure to delete only logged.
import type { VirtualMachine } from "../../api/generated/v1.js";
import { PatchSet } from "../../apimachinery/patch/patch.js";
import type { KubeClient } from "../../controller/client.js";
import type { KubeObject } from "../../controller/object.js";
import { controllerRevisionsGVR, virtualMachinesGVR, type StoredVM } from "../../controller/resources.js";
import { errorMessage } from "../../util/error-message.js";
import {
  getInstancetypeSpec,
  getPreferenceSpec,
  type InstancetypeControllerRevision,
} from "../compatibility/compatibility.js";
import type { Getter } from "../find/spec.js";
import { ControllerRevisionObjectVersionLabel, INSTANCETYPE_VERSION } from "../find/resources.js";
import { hasControllerRevisionRef, newControllerRevision } from "../revision/store.js";

export function isObjectLatestVersion(revision: InstancetypeControllerRevision): boolean {
  return revision.metadata?.labels?.[ControllerRevisionObjectVersionLabel] === INSTANCETYPE_VERSION;
}

type Member = "instancetypeRef" | "preferenceRef";

export class RevisionUpgrader {
  constructor(
    private readonly client: KubeClient,
    private readonly revisions: Getter<InstancetypeControllerRevision>,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** Upstream's Upgrade: `vm` (its metadata and status refs) follows what was written. */
  async upgrade(vm: StoredVM): Promise<void> {
    if (vm.spec.instancetype === undefined && vm.spec.preference === undefined) return;
    const patch = new PatchSet();
    const upgraded: Partial<Record<Member, string>> = {};
    if (vm.spec.instancetype !== undefined && hasControllerRevisionRef(vm.status?.instancetypeRef)) {
      const name = await this.upgradeRevision(vm, "instancetypeRef", patch);
      if (name) upgraded.instancetypeRef = name;
    }
    if (vm.spec.preference !== undefined && hasControllerRevisionRef(vm.status?.preferenceRef)) {
      const name = await this.upgradeRevision(vm, "preferenceRef", patch);
      if (name) upgraded.preferenceRef = name;
    }
    if (patch.isEmpty) return;
    const namespace = vm.metadata?.namespace ?? "";
    const patched = await this.client
      .resource<StoredVM>(virtualMachinesGVR)
      .patchStatus(namespace, vm.metadata?.name ?? "", "json", patch.toJSON());
    vm.metadata = patched.metadata;
    for (const member of ["instancetypeRef", "preferenceRef"] as const) {
      const name = upgraded[member];
      const ref = vm.status?.[member]?.controllerRevisionRef;
      if (name === undefined || ref === undefined) continue;
      try {
        await this.client.resource(controllerRevisionsGVR).delete(namespace, ref.name ?? "");
      } catch (err) {
        const what = member === "instancetypeRef" ? "instance type" : "preference";
        this.log(
          `ignoring failure to delete ControllerRevision during stashed ${what} object upgrade: ${errorMessage(err)}`,
        );
      }
      ref.name = name;
    }
    this.log("instancetype.kubevirt.io ControllerRevisions upgrade successful");
  }

  /** The new revision's name, with its patch added, or undefined when the recorded one is current. */
  private async upgradeRevision(
    vm: VirtualMachine,
    member: Member,
    patch: PatchSet,
  ): Promise<string | undefined> {
    const name = vm.status?.[member]?.controllerRevisionRef?.name ?? "";
    const original = await this.revisions(vm.metadata?.namespace ?? "", name);
    if (isObjectLatestVersion(original)) return undefined;
    const path = `/status/${member}/controllerRevisionRef/name`;
    this.log(`upgrading instancetype.kubevirt.io ControllerRevision ${name} (${path})`);
    // Decoding refuses what is not one of the current kinds, as upstream's scheme does.
    if (member === "instancetypeRef") getInstancetypeSpec(original);
    else getPreferenceSpec(original);
    const data = original.data as KubeObject & { kind: string; spec?: unknown };
    const created = await this.client
      .resource<InstancetypeControllerRevision>(controllerRevisionsGVR)
      .create(newControllerRevision(vm, data, data.kind));
    const createdName = created.metadata?.name ?? "";
    patch.testAndSet(path, name, createdName);
    return createdName;
  }
}
