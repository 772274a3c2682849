// What the renderer refuses. The validating webhook already refuses everything kubevirt-ts does not
// build yet (one table, pkg/virt-config/supported-subset.ts); the renderer asks the same table, so a VMI
// that slipped past the webhook (created before it ran, or with the webhook off) fails clearly instead of
// getting a Pod that cannot work. A few Pod-level features the webhook has no reason to refuse are added
// here, because rendering them needs machinery this port does not have yet.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { Path } from "../../api/field.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { FeatureGate } from "../../virt-config/featuregate/feature-gates.js";
import {
  notYetSupportedInMetadata,
  notYetSupportedInSpec,
  notYetSupportedMessage,
} from "../../virt-config/supported-subset.js";

interface RendererRow {
  what: string;
  field: string;
  used(vmi: VirtualMachineInstance, config: ClusterConfig): boolean;
}

const RENDERER_ROWS: readonly RendererRow[] = [
  {
    what: "dedicated CPU placement",
    field: "spec.domain.cpu.dedicatedCpuPlacement",
    used: (vmi) => vmi.spec.domain.cpu?.dedicatedCpuPlacement === true,
  },
  {
    what: "hugepages",
    field: "spec.domain.memory.hugepages",
    used: (vmi) => vmi.spec.domain.memory?.hugepages !== undefined,
  },
  {
    what: "launch security",
    field: "spec.domain.launchSecurity",
    used: (vmi) => vmi.spec.domain.launchSecurity !== undefined,
  },
  {
    what: "a persistent TPM (backend storage)",
    field: "spec.domain.devices.tpm.persistent",
    used: (vmi) => vmi.spec.domain.devices.tpm?.persistent === true,
  },
  {
    what: "persistent EFI variables (backend storage)",
    field: "spec.domain.firmware.bootloader.efi.persistent",
    used: (vmi) => vmi.spec.domain.firmware?.bootloader?.efi?.persistent === true,
  },
  {
    what: "filesystems (virtiofs)",
    field: "spec.domain.devices.filesystems",
    used: (vmi) => (vmi.spec.domain.devices.filesystems?.length ?? 0) > 0,
  },
  {
    what: "Hyper-V strict node checks (the HypervStrictCheck feature gate)",
    field: "spec.domain.features.hyperv",
    used: (vmi, config) =>
      vmi.spec.domain.features?.hyperv !== undefined &&
      config.isFeatureGateEnabled(FeatureGate.HypervStrictCheck),
  },
];

/** One message per refused use, each naming its field; empty when the VMI can be rendered. */
export function unsupportedFeatures(vmi: VirtualMachineInstance, config: ClusterConfig): string[] {
  const uses = [
    ...notYetSupportedInMetadata(Path.of("metadata"), vmi.metadata),
    ...notYetSupportedInSpec(Path.of("spec"), vmi.spec),
  ];
  const fromWebhookTable = uses.map((use) => `${use.field.toString()}: ${use.message}`);
  const fromRenderer = RENDERER_ROWS.filter((row) => row.used(vmi, config)).map(
    (row) => `${row.field}: ${notYetSupportedMessage(row.what)}`,
  );
  return [...fromWebhookTable, ...fromRenderer];
}
