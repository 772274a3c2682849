// Before a target pod is made (upstream's setupVMIRuntimeUser): the VMI is moved to the user the cluster
// runs launchers as now, so an old root VMI migrates into a non-root launcher (and back with the Root
// gate), and the deprecated non-root annotation follows.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { escapeJsonPointer, type JsonPatchOp } from "../../../apimachinery/patch/patch.js";
import { DeprecatedNonRootVMIAnnotation, NonRootUID, RootUser } from "../../../util/constants.js";

export function runtimeUserPatch(vmi: VirtualMachineInstance, rootEnabled: boolean): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  const annotationPath = `/metadata/annotations/${escapeJsonPointer(DeprecatedNonRootVMIAnnotation)}`;
  const annotations = vmi.metadata?.annotations;
  const wanted = rootEnabled ? RootUser : NonRootUID;
  // "add" sets a member whether or not it is there (Go always serialises runtimeUser).
  if ((vmi.status?.runtimeUser ?? 0) !== wanted)
    ops.push({ op: "add", path: "/status/runtimeUser", value: wanted });
  if (!rootEnabled) {
    if (!annotations) {
      ops.push({
        op: "add",
        path: "/metadata/annotations",
        value: { [DeprecatedNonRootVMIAnnotation]: "true" },
      });
    } else if (!(DeprecatedNonRootVMIAnnotation in annotations)) {
      ops.push({ op: "add", path: annotationPath, value: "true" });
    }
  } else if (annotations && DeprecatedNonRootVMIAnnotation in annotations) {
    ops.push({ op: "remove", path: annotationPath });
  }
  return ops;
}
