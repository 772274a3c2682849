// Whether the VM's VMI can keep running the VM's current template (upstream's syncRestartRequired): the
// template spec the VMI was started from, kept in its ControllerRevision, against the VM's own, both with
// their instance types and preferences applied by the caller (so a changed reference counts). Upstream
// lets some changes through as live updates (CPU sockets, guest memory, node selector, affinity and
// tolerations, NIC and volume hotplug); kubevirt-ts applies none of them to a running VMI yet, so every
// template spec change needs a restart, except the firmware UUID the controller writes into the template
// itself when the VMI already runs with that UUID.
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceSpec,
  VirtualMachineSpec,
} from "../../../api/generated/v1.js";
import { jsonEqual } from "../common/equality.js";

export const RestartRequiredMessage = "a non-live-updatable field was changed in the template spec";

/** True when the VMI runs a template spec that differs from the VM's in a way it cannot take live. */
export function isRestartRequired(
  startedFrom: VirtualMachineSpec,
  vm: VirtualMachine,
  vmi: VirtualMachineInstance | undefined,
): boolean {
  const current = vm.spec.template?.spec;
  const seen: VirtualMachineInstanceSpec | undefined = structuredClone(startedFrom.template?.spec);
  const firmware = current?.domain.firmware;
  if (seen && firmware && vmi?.spec.domain.firmware && vmi.spec.domain.firmware.uuid === firmware.uuid) {
    seen.domain.firmware = { ...seen.domain.firmware, uuid: firmware.uuid };
  }
  return !jsonEqual(seen, current);
}
