// The VirtualMachineInstanceMigration the evacuation controller creates for a VMI leaving a node
// (upstream's GenerateNewMigration): named by the apiserver from "kubevirt-evacuation-", annotated with
// the node it evacuates; the migration mutator adds the kubevirt.io/vmi-name label and the finalizer.
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from "../../../../api/generated/v1.js";
import { EvacuationMigrationAnnotation } from "../../migration/vmim.js";

export const EvacuationMigrationGenerateName = "kubevirt-evacuation-";
import { EvictionSourceAnnotation } from "../../../../util/constants.js";

export const MigrationPriority = {
  SystemCritical: "system-critical",
  SystemMaintenance: "system-maintenance",
} as const;

export function evacuationMigration(
  vmi: VirtualMachineInstance,
  nodeName: string,
  priorityQueueEnabled: boolean,
): VirtualMachineInstanceMigration {
  const migration: VirtualMachineInstanceMigration = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceMigration",
    metadata: {
      generateName: EvacuationMigrationGenerateName,
      namespace: vmi.metadata?.namespace ?? "",
      annotations: { [EvacuationMigrationAnnotation]: nodeName },
    },
    spec: { vmiName: vmi.metadata?.name ?? "" },
  };
  if (priorityQueueEnabled) {
    // A descheduler's eviction is maintenance; a drain's is critical.
    const byDescheduler = vmi.metadata?.annotations?.[EvictionSourceAnnotation] === "descheduler";
    migration.spec.priority = byDescheduler
      ? MigrationPriority.SystemMaintenance
      : MigrationPriority.SystemCritical;
  }
  return migration;
}
