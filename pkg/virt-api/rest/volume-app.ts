// The addvolume and removevolume subresources of VMs and VMIs over the cluster (upstream volumes.go's
// handlers): gated by the hotplug feature gates, the body checked, the object read and checked against the
// volumes it has, then patched: a running VMI's spec, or the VM's template (DeclarativeHotplugVolumes) or
// its status.volumeRequests (HotplugVolumes) for the VM controller to carry out. 202 Accepted on success.
import type { VirtualMachineInstance, VirtualMachineVolumeRequest } from "../../api/generated/v1.js";
import { ApiError, isInvalid } from "../../controller/api-error.js";
import { controllerRefOf } from "../../controller/object.js";
import { errorMessage } from "../../util/error-message.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import { FeatureGate } from "../../virt-config/featuregate/feature-gates.js";
import type { JsonPatchOperation } from "./patch.js";
import {
  badRequest,
  conflict,
  internalError,
  virtualMachineInstanceResource,
  virtualMachineResource,
  type Status,
  type StatusDetails,
} from "./status.js";
import {
  fetchVM,
  fetchVMI,
  orInternalError,
  reply,
  type LifecycleClient,
  type SubresourceReply,
} from "./subresource-app.js";
import {
  addVolumeRequest,
  decodeAddVolumeOptions,
  decodeRemoveVolumeOptions,
  HOTPLUG_VOLUME_NOT_ENABLED,
  nextVolumeRequests,
  removeVolumeRequest,
  volumeRequestConflict,
  volumeRequestDryRun,
  volumeRequestSpecPatch,
  volumeRequestsStatusPatch,
} from "./volumes.js";

export const VOLUME_VERBS = ["addvolume", "removevolume"] as const;
export type VolumeVerb = (typeof VOLUME_VERBS)[number];
export type VolumeTarget = "virtualmachines" | "virtualmachineinstances";

export const VMI_NOT_RUNNING = "VMI is not running";

export type VolumeClient = Pick<
  LifecycleClient,
  "getVM" | "getVMI" | "patchVM" | "patchVMStatus" | "patchVMI"
>;

const ACCEPTED: SubresourceReply = { code: 202 };

/** Upstream's ownedByVirtualMachine: the VMI's controller is a kubevirt.io/v1 VM. */
function ownedByVM(vmi: VirtualMachineInstance): boolean {
  const owner = controllerRefOf(vmi as never);
  return owner?.kind === "VirtualMachine" && owner.apiVersion === "kubevirt.io/v1";
}

export class VolumeApp {
  constructor(
    private readonly client: VolumeClient,
    private readonly clusterConfig: () => ClusterConfig,
  ) {}

  handle(
    target: VolumeTarget,
    verb: VolumeVerb,
    namespace: string,
    name: string,
    body: unknown,
  ): Promise<SubresourceReply> {
    return orInternalError(() => this.dispatch(target, verb, namespace, name, body));
  }

  private gate(gate: string): boolean {
    return this.clusterConfig().isFeatureGateEnabled(gate);
  }

  private async dispatch(
    target: VolumeTarget,
    verb: VolumeVerb,
    namespace: string,
    name: string,
    body: unknown,
  ): Promise<SubresourceReply> {
    const legacy = this.gate(FeatureGate.HotplugVolumes);
    if (!legacy && !this.gate(FeatureGate.DeclarativeHotplugVolumes)) {
      return reply(badRequest(HOTPLUG_VOLUME_NOT_ENABLED));
    }
    let request: VirtualMachineVolumeRequest;
    if (verb === "addvolume") {
      const decoded = decodeAddVolumeOptions(body);
      if (!decoded.ok) return reply(decoded.status);
      request = addVolumeRequest(decoded.value);
    } else {
      const decoded = decodeRemoveVolumeOptions(body);
      if (!decoded.ok) return reply(decoded.status);
      request = removeVolumeRequest(decoded.value);
    }
    const refused =
      target === "virtualmachineinstances"
        ? await this.patchVMI(namespace, name, request, legacy)
        : await this.patchVM(namespace, name, request, legacy);
    return refused ? reply(refused) : ACCEPTED;
  }

  /** A running VMI's own volumes: ephemeral, gone when it stops. */
  private async patchVMI(
    namespace: string,
    name: string,
    request: VirtualMachineVolumeRequest,
    ephemeralSupported: boolean,
  ): Promise<Status | undefined> {
    const vmi = await fetchVMI(this.client, namespace, name);
    if ("code" in vmi) return vmi;
    // Without HotplugVolumes a VM's VMI gets its volumes from the VM's template only.
    if (ownedByVM(vmi) && !ephemeralSupported) {
      return badRequest(
        `VMI ${vmi.metadata?.namespace ?? namespace}/${vmi.metadata?.name ?? name} is owned by a VM`,
      );
    }
    if (vmi.status?.phase !== "Running")
      return conflict(virtualMachineInstanceResource, name, VMI_NOT_RUNNING);
    const why = volumeRequestConflict(vmi.spec.volumes ?? [], request);
    if (why) return conflict(virtualMachineInstanceResource, name, why);
    const patch = volumeRequestSpecPatch("", vmi.spec, request);
    return this.write("vmi", () =>
      this.client.patchVMI(namespace, name, patch, volumeRequestDryRun(request)),
    );
  }

  private async patchVM(
    namespace: string,
    name: string,
    request: VirtualMachineVolumeRequest,
    asStatusRequest: boolean,
  ): Promise<Status | undefined> {
    const vm = await fetchVM(this.client, namespace, name);
    if ("code" in vm) return vm;
    const template = vm.spec.template.spec;
    const why = volumeRequestConflict(template?.volumes ?? [], request);
    if (why) return conflict(virtualMachineResource, name, why);
    const dryRun = volumeRequestDryRun(request);
    if (!asStatusRequest) {
      // DeclarativeHotplugVolumes: the template is the request; the controller hotplugs what it adds.
      const patch = volumeRequestSpecPatch(
        "/spec/template",
        template ?? { domain: { devices: {} } },
        request,
      );
      return this.write("vm", () => this.client.patchVM(namespace, name, patch, dryRun));
    }
    const next = nextVolumeRequests(vm.status?.volumeRequests ?? [], request);
    if (!next.ok) return conflict(virtualMachineResource, name, next.message);
    const patch: JsonPatchOperation[] = volumeRequestsStatusPatch(vm, next.requests);
    return this.write("vm status", () => this.client.patchVMStatus(namespace, name, patch, dryRun));
  }

  /** An invalid patch keeps the apiserver's Status; anything else is an InternalError naming the object. */
  private async write(what: string, patch: () => Promise<void>): Promise<Status | undefined> {
    try {
      await patch();
      return undefined;
    } catch (error) {
      if (isInvalid(error) && error instanceof ApiError) return asStatus(error);
      return internalError(`unable to patch ${what}: ${errorMessage(error)}`);
    }
  }
}

/** The apiserver's refusal as it answered it, so that its causes reach the caller. */
function asStatus(error: ApiError): Status {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: error.message,
    reason: error.reason,
    code: error.code,
  };
  const details = error.status?.details;
  if (details) status.details = details as StatusDetails;
  return status;
}
