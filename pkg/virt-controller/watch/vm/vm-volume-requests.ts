// A VM's hotplug volume requests (status.volumeRequests, written by virt-api's addvolume/removevolume
// under HotplugVolumes), as upstream's handleVolumeRequests and trimDoneVolumeRequests: each request is
// applied to the template and passed on to the running VMI through its own subresource; a request is
// dropped from the status once the template shows it done.
import type {
  AddVolumeOptions,
  RemoveVolumeOptions,
  VirtualMachineInstance,
  VirtualMachineInstanceSpec,
  VirtualMachineVolumeRequest,
} from "../../../api/generated/v1.js";
import type { Transport } from "../../../controller/rest.js";
import { isBeingDeleted } from "../../../controller/object.js";
import type { StoredVM } from "../../../controller/resources.js";
import { applyVolumeRequestOnVMISpec } from "../../../controller/volume-request.js";

export const HotplugVolumeErrorReason = "HotPlugVolumeError";
export const FailedUpdateErrorReason = "FailedUpdateError";

/** The VMI subresources the controller passes requests on to (virt-api's, as upstream's clientset). */
export interface VMIVolumeHotplug {
  addVolume(namespace: string, name: string, options: AddVolumeOptions): Promise<void>;
  removeVolume(namespace: string, name: string, options: RemoveVolumeOptions): Promise<void>;
}

/** PUTs to virt-api's virtualmachineinstances/{name}/addvolume|removevolume through the apiserver. */
export function subresourceVolumeHotplug(transport: Transport): VMIVolumeHotplug {
  const put = async (namespace: string, name: string, verb: string, body: unknown) => {
    const segments = ["namespaces", namespace, "virtualmachineinstances", name, verb].map(encodeURIComponent);
    await transport.request({
      method: "PUT",
      path: `/apis/subresources.kubevirt.io/v1/${segments.join("/")}`,
      body,
    });
  };
  return {
    addVolume: (namespace, name, options) => put(namespace, name, "addvolume", options),
    removeVolume: (namespace, name, options) => put(namespace, name, "removevolume", options),
  };
}

/** The template with every pending request applied (the controller then writes it if it changed). */
export function templateWithVolumeRequests(vm: StoredVM): VirtualMachineInstanceSpec | undefined {
  const requests = vm.status?.volumeRequests ?? [];
  const template = vm.spec.template.spec;
  if (requests.length === 0 || !template) return template;
  return requests.reduce((spec, request) => applyVolumeRequestOnVMISpec(spec, request), template);
}

/**
 * Passes each request on to the VMI (one not being deleted), unless the VMI already has the volume it
 * adds or lacks the one it removes.
 */
export async function passVolumeRequestsToVMI(
  requests: readonly VirtualMachineVolumeRequest[],
  vmi: VirtualMachineInstance | undefined,
  hotplug: VMIVolumeHotplug,
): Promise<void> {
  if (!vmi || isBeingDeleted(vmi)) return;
  const namespace = vmi.metadata?.namespace ?? "";
  const name = vmi.metadata?.name ?? "";
  const has = new Set((vmi.spec.volumes ?? []).map((volume) => volume.name));
  for (const request of requests) {
    if (request.addVolumeOptions) {
      if (!has.has(request.addVolumeOptions.name))
        await hotplug.addVolume(namespace, name, request.addVolumeOptions);
    } else if (request.removeVolumeOptions) {
      if (has.has(request.removeVolumeOptions.name))
        await hotplug.removeVolume(namespace, name, request.removeVolumeOptions);
    }
  }
}

/** The requests still to be done: an add until its volume and disk are in the template, a remove until neither is. */
export function pendingVolumeRequests(
  requests: readonly VirtualMachineVolumeRequest[],
  template: VirtualMachineInstanceSpec | undefined,
): VirtualMachineVolumeRequest[] {
  const volumes = new Set((template?.volumes ?? []).map((volume) => volume.name));
  const disks = new Set((template?.domain.devices.disks ?? []).map((disk) => disk.name));
  return requests.filter((request) => {
    const adds = request.addVolumeOptions !== undefined;
    const name = request.addVolumeOptions?.name ?? request.removeVolumeOptions?.name ?? "";
    const inVolumes = volumes.has(name);
    const inDisks = disks.has(name);
    const done = adds ? inVolumes && inDisks : !inVolumes && !inDisks;
    return !done;
  });
}
