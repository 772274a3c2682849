// Label values KubeVirt derives from object names (upstream pkg/apimachinery/labels.go); virt-controller
// puts them on launcher Pods and virtctl selects those Pods by them (expose).
import { createHash } from "node:crypto";

const DNS1035LabelMaxLength = 63;

/** A label-safe id for the VMI: its name, or for long names a prefix plus 8 hex digits of its SHA-1. */
export function virtualMachineInstanceID(name: string): string {
  if (name.length <= DNS1035LabelMaxLength) return name;
  const hashLength = 8;
  const prefix = name.slice(0, DNS1035LabelMaxLength - hashLength - 1);
  const hash = createHash("sha1").update(name).digest("hex").slice(0, hashLength);
  return `${prefix}-${hash}`;
}
