// A VM's dataVolumeTemplates as upstream's VM admitter checks them (pkg/storage/admitters
// data-volume-template.go): each template names a DataVolume the VM's volumes use, has exactly one of
// `pvc`/`storage`, and one way of being populated; an embedded namespace must be the VM's. Upstream's
// field paths are kept as it spells them (`dataVolumeTemplate[0]`, `PVC.Storage`), since scripts match them.
import { FieldErrorType, Path } from "../../api/field.js";
import type { StatusCause } from "../../api/generated/k8s.js";
import type { DataVolumeTemplateSpec, VirtualMachineSpec } from "../../api/generated/v1.js";
import type { DataVolumeSource } from "../../api/generated/v1beta1.js";

const cause = (reason: FieldErrorType, message: string, field: Path): StatusCause => ({
  reason,
  message,
  field: field.toString(),
});

function sourceCount(source: DataVolumeSource): number {
  return Object.values(source).filter((value) => value !== undefined && value !== null).length;
}

function validateDataVolume(at: Path, template: DataVolumeTemplateSpec): StatusCause[] {
  const name = template.metadata?.name ?? "";
  if (name === "") {
    const field = at.child("name");
    return [
      cause(
        FieldErrorType.Required,
        `'name' field must not be empty for DataVolumeTemplate entry ${field.toString()}.`,
        field,
      ),
    ];
  }
  const spec = template.spec ?? {};
  const storageField = at.child("PVC", "Storage");
  if (!spec.pvc && !spec.storage) {
    return [cause(FieldErrorType.Invalid, "Missing Data volume PVC or Storage", storageField)];
  }
  if (spec.pvc && spec.storage) {
    return [
      cause(
        FieldErrorType.Invalid,
        "Duplicate storage definition, both target storage and target pvc defined",
        storageField,
      ),
    ];
  }
  const target = spec.pvc ?? spec.storage;
  const externallyPopulated = Boolean(target?.dataSourceRef || target?.dataSource);
  const sourced = Boolean(spec.source || spec.sourceRef);
  if (externallyPopulated && sourced) {
    return [
      cause(
        FieldErrorType.Invalid,
        "External population is incompatible with Source and SourceRef",
        at.child("source"),
      ),
    ];
  }
  if (!externallyPopulated && !sourced) {
    return [
      cause(
        FieldErrorType.Invalid,
        "Data volume should have either Source, SourceRef, or be externally populated",
        at.child("source", "sourceRef"),
      ),
    ];
  }
  if (spec.source) {
    const count = sourceCount(spec.source);
    if (count === 0)
      return [cause(FieldErrorType.Invalid, "Missing dataVolume valid source", at.child("source"))];
    if (count > 1) return [cause(FieldErrorType.Invalid, "Multiple dataVolume sources", at.child("source"))];
  }
  return [];
}

/** Upstream's ValidateDataVolumeTemplate; `field` is the VM spec's path. */
export function validateDataVolumeTemplates(field: Path, spec: VirtualMachineSpec): StatusCause[] {
  const volumes = spec.template?.spec?.volumes ?? [];
  return (spec.dataVolumeTemplates ?? []).flatMap((template, index) => {
    const at = field.child("dataVolumeTemplate").index(index);
    const invalid = validateDataVolume(at, template);
    if (invalid.length > 0) return invalid;
    const name = template.metadata?.name;
    const referenced = volumes.some(
      (volume) => volume.persistentVolumeClaim?.claimName === name || volume.dataVolume?.name === name,
    );
    if (referenced) return [];
    return [
      cause(
        FieldErrorType.Required,
        `DataVolumeTemplate entry ${at.toString()} must be referenced in the VMI template's 'volumes' list`,
        at,
      ),
    ];
  });
}

/**
 * Upstream's validateVirtualMachineDataVolumeTemplateNamespace: an embedded namespace must be the VM's
 * (or the request's); an update that leaves the templates as they were is not checked again.
 */
export function validateDataVolumeTemplateNamespaces(
  vm: { metadata?: { namespace?: string }; spec: VirtualMachineSpec },
  requestNamespace: string,
  oldTemplates: readonly DataVolumeTemplateSpec[] | undefined | "create",
  templatesEqual: (a: unknown, b: unknown) => boolean,
): StatusCause[] {
  if (oldTemplates !== "create" && templatesEqual(oldTemplates, vm.spec.dataVolumeTemplates)) return [];
  const targetNamespace = vm.metadata?.namespace || requestNamespace;
  return (vm.spec.dataVolumeTemplates ?? []).flatMap((template, index) => {
    const namespace = template.metadata?.namespace ?? "";
    if (namespace === "" || namespace === targetNamespace) return [];
    return [
      cause(
        FieldErrorType.Invalid,
        `Embedded DataVolume namespace ${namespace} differs from VM namespace ${targetNamespace}`,
        Path.of("spec", "dataVolumeTemplates").index(index),
      ),
    ];
  });
}
