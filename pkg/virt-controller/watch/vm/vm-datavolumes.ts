// A VM's dataVolumeTemplates become DataVolumes (cdi.kubevirt.io/v1beta1), as upstream's
// handleDataVolumes creates them: one per template, owned by the VM, before its VMI may start. kubevirt-ts
// ships no CDI, so on the local cluster the API group is not served and the creation fails exactly as it
// does on an upstream cluster without CDI: a FailedDataVolumeCreate event, a failed sync, no VMI.
// Without a DataVolume informer (there is nothing to inform about without CDI) a template's DataVolume is
// looked up with a GET; a 404 reads as "not created yet", as an empty cache would.
import type { DataVolumeTemplateSpec, VirtualMachine } from "../../../api/generated/v1.js";
import type { DataVolumeSpec } from "../../../api/generated/v1beta1.js";
import type { PVCLookup } from "../../../api/core/v1/persistentvolumeclaim.js";
import { ApiError, isNotFound } from "../../../controller/api-error.js";
import type { KubeClient } from "../../../controller/client.js";
import {
  dataSourcesGVR,
  dataVolumesGVR,
  type CloneSource,
  type DataSource,
  type DataVolume,
} from "../../../storage/types/cdi.js";
import type { GroupVersionResource } from "../../../controller/gvr.js";
export { dataVolumesGVR, type DataVolume };
import { CreatedByLabel } from "../../../util/constants.js";
import type { Reporter } from "../common/reporter.js";
import { vmControllerReference } from "./vm-setup.js";

export const FailedDataVolumeCreateReason = "FailedDataVolumeCreate";
export const SuccessfulDataVolumeCreateReason = "SuccessfulDataVolumeCreate";
export const FailedDataVolumeImportReason = "FailedDataVolumeImport";
/** Upstream's spelling. */
export const SourcePVCNotAvailableReason = "SourcePVCNotAvailabe";
/** "false" defers the DataVolumes to the VM's first start (upstream's legacy default is immediate). */
export const ImmediateDataVolumeCreationAnnotation = "kubevirt.io/immediate-data-volume-creation";
const AllowClaimAdoptionAnnotation = "cdi.kubevirt.io/allowClaimAdoption";

/** The phases in which a DataVolume no longer holds its VM back. */
const SettledPhases = new Set(["Succeeded", "WaitForFirstConsumer", "PendingPopulation"]);

/** upstream GenerateDataVolumeFromTemplate + CreateDataVolumeManifest. */
export function dataVolumeManifest(template: DataVolumeTemplateSpec, vm: VirtualMachine): DataVolume {
  const metadata = structuredClone(template.metadata ?? {});
  const spec = structuredClone(template.spec);
  const priorityClassName = vm.spec.template.spec?.priorityClassName;
  if (!spec.priorityClassName && priorityClassName) spec.priorityClassName = priorityClassName;
  return {
    apiVersion: "cdi.kubevirt.io/v1beta1",
    kind: "DataVolume",
    metadata: {
      ...metadata,
      namespace: vm.metadata?.namespace ?? "",
      labels: { ...metadata.labels, [CreatedByLabel]: vm.metadata?.uid ?? "" },
      annotations: { ...metadata.annotations, [AllowClaimAdoptionAnnotation]: "true" },
      ownerReferences: [vmControllerReference(vm)],
    },
    spec,
  };
}

/** client-go's words for an error response without a Status body (an API group nobody serves). */
function clientGoMessage(err: unknown, verb: string, gvr: GroupVersionResource, name = ""): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  if (err.status || err.code !== 404) return err.message;
  const target = `${gvr.resource}.${gvr.group}${name ? ` ${name}` : ""}`;
  return `the server could not find the requested resource (${verb} ${target})`;
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class DataVolumeTemplates {
  constructor(
    private readonly client: KubeClient,
    private readonly pvcs: PVCLookup,
    private readonly reporter: Reporter,
  ) {}

  private async find(namespace: string, name: string): Promise<DataVolume | undefined> {
    try {
      return await this.client.resource<DataVolume>(dataVolumesGVR).get(namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw new Error(
        `error fetching DataVolume ${namespace}/${name}: ${clientGoMessage(err, "get", dataVolumesGVR, name)}`,
      );
    }
  }

  /**
   * upstream handleDataVolumes: creates the missing DataVolumes; true when every one is there and
   * settled. Throws upstream's messages (the caller wraps them as a sync error).
   */
  async ensure(vm: VirtualMachine): Promise<boolean> {
    const namespace = vm.metadata?.namespace ?? "";
    let ready = true;
    for (const template of vm.spec.dataVolumeTemplates ?? []) {
      const name = template.metadata?.name ?? "";
      const current = await this.find(namespace, name);
      if (current) {
        const phase = current.status?.phase ?? "";
        if (SettledPhases.has(phase)) continue;
        if (phase === "Failed") {
          this.reporter.event(
            vm,
            "Warning",
            FailedDataVolumeImportReason,
            `DataVolume ${name} failed to import disk image`,
          );
        }
        ready = false;
        continue;
      }
      ready = false;
      const manifest = dataVolumeManifest(template, vm);
      try {
        await this.resolveCloneSource(namespace, manifest.spec);
      } catch (err) {
        throw new Error(`unable to create DataVolume manifest: ${errorText(err)}`);
      }
      if (manifest.spec.sourceRef) throw new Error("DataVolume sourceRef not supported");
      this.warnOnMissingCloneSource(vm, manifest);
      try {
        await this.client.resource<DataVolume>(dataVolumesGVR).create(manifest);
      } catch (err) {
        const message = clientGoMessage(err, "post", dataVolumesGVR);
        // An old CDI without claim adoption refuses a DataVolume over an existing claim; the claim is used.
        if (this.pvcs(namespace, name) && message.includes("already exists")) continue;
        this.reporter.event(
          vm,
          "Warning",
          FailedDataVolumeCreateReason,
          `Error creating DataVolume ${name}: ${message}`,
        );
        throw new Error(`failed to create DataVolume: ${message}`);
      }
      this.reporter.event(vm, "Normal", SuccessfulDataVolumeCreateReason, `Created DataVolume ${name}`);
    }
    return ready;
  }

  /**
   * upstream GetResolvedCloneSource: a DataSource reference is replaced by the claim or snapshot it names,
   * and a clone source without a namespace gets the VM's.
   */
  private async resolveCloneSource(namespace: string, spec: DataVolumeSpec): Promise<void> {
    let sourceNamespace = namespace;
    let source: CloneSource | undefined = spec.source;
    const ref = spec.sourceRef;
    if (ref?.kind === "DataSource") {
      sourceNamespace = ref.namespace ?? namespace;
      const dataSource = await this.client
        .resource<DataSource>(dataSourcesGVR)
        .get(sourceNamespace, ref.name)
        .catch((err: unknown) => {
          throw new Error(clientGoMessage(err, "get", dataSourcesGVR, ref.name));
        });
      const resolved = dataSource.spec.source?.dataSource
        ? dataSource.status?.source
        : dataSource.spec.source;
      source = { pvc: resolved?.pvc, snapshot: resolved?.snapshot };
    }
    const clone = source?.pvc ?? source?.snapshot;
    if (!clone) return;
    clone.namespace ||= sourceNamespace;
    delete spec.sourceRef;
    spec.source = source?.pvc ? { pvc: source.pvc } : { snapshot: source?.snapshot };
  }

  /** Upstream lets a clone wait for its source claim, and says so. */
  private warnOnMissingCloneSource(vm: VirtualMachine, dataVolume: DataVolume): void {
    const source = dataVolume.spec.source?.pvc;
    if (!source || this.pvcs(source.namespace ?? "", source.name ?? "")) return;
    this.reporter.event(
      vm,
      "Warning",
      SourcePVCNotAvailableReason,
      `Source PVC ${source.name ?? ""} not available: Target PVC ${dataVolume.metadata?.name ?? ""} will remain unpopulated until source is created`,
    );
  }
}
