import type { ObjectMeta } from "../../../../api/generated/k8s.js";

/** Records which PCI topology scheme placed the devices, so it stays stable across restarts. */
export const PciTopologyVersionAnnotation = "kubevirt.io/pci-topology-version";
/** v1 placeholders kept for address stability, plus the v2 hotplug port formula. */
export const PciTopologyVersionV3 = "v3";

/** Marks new objects with the current PCI topology version unless one is recorded already. */
export function setDefaultPciTopologyVersion(meta: ObjectMeta): void {
  const annotations = (meta.annotations ??= {});
  if (!(PciTopologyVersionAnnotation in annotations))
    annotations[PciTopologyVersionAnnotation] = PciTopologyVersionV3;
}
