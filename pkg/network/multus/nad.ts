// NetworkAttachmentDefinitions as KubeVirt reads them (upstream pkg/network/multus/nad.go): a VMI's
// multus `networkName` is `<namespace>/<name>` or a name in the VMI's own namespace, and the NAD's
// resourceName annotation tells which device-plugin resource its pods must request.
import { z } from "zod";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { GroupVersionResource } from "../../controller/gvr.js";

export const RESOURCE_NAME_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName";

export const networkAttachmentDefinitionsGVR: GroupVersionResource = {
  group: "k8s.cni.cncf.io",
  version: "v1",
  resource: "network-attachment-definitions",
  namespaced: true,
  kind: "NetworkAttachmentDefinition",
};

/** What KubeVirt reads of a NAD: its annotations. */
export const NetworkAttachmentDefinitionSchema = z.looseObject({
  metadata: z.looseObject({ annotations: z.record(z.string(), z.string()).optional() }).optional(),
});
export type NetworkAttachmentDefinition = z.infer<typeof NetworkAttachmentDefinitionSchema>;

/** A GET of one NAD through the apiserver; rejects when it cannot be read. */
export type NADGetter = (namespace: string, name: string) => Promise<unknown>;

export interface NamespacedName {
  namespace: string;
  name: string;
}

export function netAttachDefNamespacedName(namespace: string, fullNetworkName: string): NamespacedName {
  const slash = fullNetworkName.indexOf("/");
  if (slash >= 0) {
    return { namespace: fullNetworkName.slice(0, slash), name: fullNetworkName.slice(slash + 1) };
  }
  if (!namespace) throw new Error("the namespace of a network attachment definition must not be empty");
  return { namespace, name: fullNetworkName };
}

/** Network name → the resourceName of its NAD ("" when the NAD names none), for every multus network. */
export async function networkToResource(
  getNAD: NADGetter,
  vmi: VirtualMachineInstance,
): Promise<Map<string, string>> {
  const resources = new Map<string, string>();
  for (const network of vmi.spec.networks ?? []) {
    if (network.multus === undefined) continue;
    const { namespace, name } = netAttachDefNamespacedName(
      vmi.metadata?.namespace ?? "",
      network.multus.networkName,
    );
    let nad: NetworkAttachmentDefinition;
    try {
      nad = NetworkAttachmentDefinitionSchema.parse(await getNAD(namespace, name));
    } catch {
      // Upstream reports any failure to read the NAD this way, not only NotFound.
      throw new Error(`failed to locate network attachment definition ${namespace}/${name}`);
    }
    resources.set(network.name, nad.metadata?.annotations?.[RESOURCE_NAME_ANNOTATION] ?? "");
  }
  return resources;
}
