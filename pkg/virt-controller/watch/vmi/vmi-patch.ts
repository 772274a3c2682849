// How virt-controller writes a VMI virt-handler already owns (Scheduled, Running): a JSON patch of only
// the members it manages, each guarded by a test of the value it computed from (upstream's
// prepareVMIPatch), so it never overwrites what virt-handler wrote meanwhile.
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceNetworkInterface,
} from "../../../api/generated/v1.js";
import { jsonEqual } from "../common/equality.js";
import { conditionsEqual } from "../../../controller/conditions.js";
import { PatchSet } from "../../../apimachinery/patch/patch.js";

const byName = (
  a: VirtualMachineInstanceNetworkInterface,
  b: VirtualMachineInstanceNetworkInterface,
): number => ((a.name ?? "") < (b.name ?? "") ? -1 : (a.name ?? "") > (b.name ?? "") ? 1 : 0);

export function prepareVMIPatch(before: VirtualMachineInstance, after: VirtualMachineInstance): PatchSet {
  const patch = new PatchSet();
  const old = before.status ?? {};
  const next = after.status ?? {};
  if (!jsonEqual(next.volumeStatus, old.volumeStatus)) {
    patch.testAndSet("/status/volumeStatus", old.volumeStatus, next.volumeStatus);
  }
  if (!conditionsEqual(old, next)) patch.testAndSet("/status/conditions", old.conditions, next.conditions);
  if (!jsonEqual(next.activePods, old.activePods)) {
    patch.testAndSet("/status/activePods", old.activePods, next.activePods);
  }
  if ((next.phase ?? "") !== (old.phase ?? ""))
    patch.testAndSet("/status/phase", old.phase || undefined, next.phase);
  if ((next.launcherContainerImageVersion ?? "") !== (old.launcherContainerImageVersion ?? "")) {
    patch.testAndSet(
      "/status/launcherContainerImageVersion",
      old.launcherContainerImageVersion || undefined,
      next.launcherContainerImageVersion ?? "",
    );
  }
  if (!jsonEqual(before.metadata?.labels, after.metadata?.labels)) {
    patch.testAndSet("/metadata/labels", before.metadata?.labels, after.metadata?.labels ?? {});
  }
  if (!jsonEqual(before.metadata?.finalizers, after.metadata?.finalizers)) {
    patch.testAndSet("/metadata/finalizers", before.metadata?.finalizers, after.metadata?.finalizers ?? []);
  }
  // Interface order does not matter; comparing sorted lists avoids a patch flood (upstream #14442).
  const oldInterfaces = [...(old.interfaces ?? [])].sort(byName);
  const newInterfaces = [...(next.interfaces ?? [])].sort(byName);
  if (!jsonEqual(newInterfaces, oldInterfaces)) {
    patch.testAndSet("/status/interfaces", old.interfaces, next.interfaces ?? []);
  }
  return patch;
}

/** Whether anything virt-controller writes with a full update changed (upstream's vmiChanged). */
export function vmiChanged(before: VirtualMachineInstance, after: VirtualMachineInstance): boolean {
  return (
    !jsonEqual(before.status, after.status) ||
    !jsonEqual(before.metadata?.finalizers, after.metadata?.finalizers) ||
    !jsonEqual(before.metadata?.annotations, after.metadata?.annotations) ||
    !jsonEqual(before.metadata?.labels, after.metadata?.labels)
  );
}
