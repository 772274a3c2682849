// Reads one libvirt domain into the launcher's DomainObject: definition, state and KubeVirt
// metadata (upstream util.NewDomain + GetDomainSpec + SetState).
import type { Domain as LibvirtDomain } from "../../libvirt/domain-events.js";
import { unmarshalDomainXML } from "./api/domain-xml.js";
import type { DomainConnection } from "./domain-connection.js";
import { isNotFound } from "./domain-connection.js";
import type { DomainObject } from "./api/domain-object.js";
import { splitVMINamespaceKey } from "./api/domain-object.js";
import { LifeCycle, StateChangeReason, convReason, convState } from "./api/domain-status.js";
import type { MetadataCache } from "./metadata-cache.js";

/** The domain as it is now, or undefined when libvirt no longer knows it. */
export async function readDomain(
  connection: DomainConnection,
  dom: LibvirtDomain,
  metadata: MetadataCache,
): Promise<DomainObject | undefined> {
  try {
    const { state, reason } = await connection.domainGetState(dom);
    const spec = unmarshalDomainXML(await connection.domainGetXMLDesc(dom, 0));
    const kubeVirt = metadata.load();
    return {
      objectMeta: { ...splitVMINamespaceKey(dom.name), uid: kubeVirt.uid },
      spec: { ...spec, metadata: { kubeVirt } },
      status: { status: convState(state), reason: convReason(state, reason) },
    };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** A domain libvirt no longer has: the name it had, state NoState, reason NonExistent. */
export function nonExistentDomain(domainName: string, metadata: MetadataCache): DomainObject {
  const kubeVirt = metadata.load();
  return {
    objectMeta: { ...splitVMINamespaceKey(domainName), uid: kubeVirt.uid },
    spec: {
      type: "",
      name: domainName,
      memory: { value: 0, unit: "" },
      os: { type: { os: "" } },
      devices: {},
      cpu: {},
      metadata: { kubeVirt },
    },
    status: { status: LifeCycle.NoState, reason: StateChangeReason.NonExistent },
  };
}
