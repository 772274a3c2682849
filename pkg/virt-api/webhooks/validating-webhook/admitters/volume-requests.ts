// Upstream's validateVolumeRequests (vms-admitter.go), run on a VM's status writes: each request adds or
// removes, once per volume, with a hotpluggable disk, without clashing with a volume of the same name on
// the template or the running VMI; the template and the VMI with every request applied must still be
// valid, and nothing is hotplugged during a migration.
import type { VirtualMachine, VirtualMachineInstance, Volume } from "../../../../api/generated/v1.js";
import { isMigrating } from "../../../../controller/vmi-phase.js";
import { applyVolumeRequestOnVMISpec } from "../../../../controller/volume-request.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { semanticallyEqual } from "../../../../apimachinery/semantic-equal.js";
import { invalidCause, notSupportedCause, Path, type StatusCause } from "../../../../api/causes.js";
import { validateHotplugDiskConfiguration } from "../../../../storage/admitters/hotplug-disk.js";
import { validateVirtualMachineInstanceSpec } from "./spec.js";

// Upstream builds the path from "Status", capitalised.
const FIELD = "Status.volumeRequests";

const byName = (volumes: readonly Volume[] | undefined) =>
  new Map((volumes ?? []).map((volume) => [volume.name, volume]));

/**
 * `vmi` is the VM's running VMI (read only when the VM is ready, and left out while it is being deleted).
 * The first problem found is the only one reported, as upstream's.
 */
export function validateVolumeRequests(
  vm: VirtualMachine,
  vmi: VirtualMachineInstance | undefined,
  config: ClusterConfig,
  now: number,
): StatusCause[] {
  const requests = vm.status?.volumeRequests ?? [];
  if (requests.length === 0) return [];
  const templateVolumes = byName(vm.spec.template.spec?.volumes);
  const vmiVolumes = byName(vmi?.spec.volumes);
  const adds = new Set<string>();
  const removes = new Set<string>();
  let template = vm.spec.template.spec ?? { domain: { devices: {} } };
  let vmiSpec = vmi?.spec;
  for (const request of requests) {
    const add = request.addVolumeOptions;
    const remove = request.removeVolumeOptions;
    if (add && remove) {
      return [
        invalidCause(
          "VolumeRequests require either addVolumeOptions or removeVolumeOptions to be set, not both",
          FIELD,
        ),
      ];
    }
    if (add) {
      if (adds.has(add.name))
        return [invalidCause(`AddVolume request for [${add.name}] aleady exists`, FIELD)];
      const disk = validateHotplugDiskConfiguration(add.disk, add.name, "AddVolume request", FIELD);
      if (disk.length > 0) return disk;
      const volume: Volume = { name: add.name };
      if (add.volumeSource?.persistentVolumeClaim)
        volume.persistentVolumeClaim = add.volumeSource.persistentVolumeClaim;
      else if (add.volumeSource?.dataVolume) volume.dataVolume = add.volumeSource.dataVolume;
      const onTemplate = templateVolumes.get(add.name);
      if (onTemplate && !semanticallyEqual(volume, onTemplate)) {
        return [
          invalidCause(
            `AddVolume request for [${add.name}] conflicts with an existing volume of the same name on the vmi template.`,
            FIELD,
          ),
        ];
      }
      const onVMI = vmiVolumes.get(add.name);
      if (onVMI && !semanticallyEqual(volume, onVMI)) {
        return [
          invalidCause(
            `AddVolume request for [${add.name}] conflicts with an existing volume of the same name on currently running vmi`,
            FIELD,
          ),
        ];
      }
      adds.add(add.name);
    } else if (remove) {
      if (removes.has(remove.name))
        return [invalidCause(`RemoveVolume request for [${remove.name}] aleady exists`, FIELD)];
      removes.add(remove.name);
    } else {
      return [
        invalidCause(
          "VolumeRequests require one of either addVolumeOptions or removeVolumeOptions to be set",
          FIELD,
        ),
      ];
    }
    template = applyVolumeRequestOnVMISpec(template, request);
    if (vmiSpec) vmiSpec = applyVolumeRequestOnVMISpec(vmiSpec, request);
  }
  const path = Path.of("spec", "template", "spec");
  const onTemplate = validateVirtualMachineInstanceSpec(path, template, config);
  if (onTemplate.length > 0) return onTemplate;
  if (vmi && vmiSpec) {
    const onVMI = validateVirtualMachineInstanceSpec(path, vmiSpec, config);
    if (onVMI.length > 0) return onVMI;
    if (isMigrating(vmi, now)) {
      return [
        notSupportedCause(
          "Cannot handle volume requests while VMI migration is in progress",
          Path.of("spec"),
        ),
      ];
    }
  }
  return [];
}
