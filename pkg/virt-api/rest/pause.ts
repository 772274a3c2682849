// The pause and unpause subresources of a VMI (upstream pkg/virt-api/rest/lifecycle.go Pause/Unpause
// VMIRequestHandler): the VMI is fetched and checked, then the request goes over mutual TLS to the
// virt-handler on its node, which has its launcher suspend or resume the domain. 200 with no body, as
// upstream's put handler answers; a dry run stops after the checks and the handler lookup.
import type { VirtualMachine, VirtualMachineInstance } from "../../api/generated/v1.js";
import { PauseOptionsSchema, UnpauseOptionsSchema } from "../../api/generated/v1.js";
import { hasCondition } from "../../controller/conditions.js";
import type { ConsoleBackend } from "./console.js";
import { putVirtHandler, virtHandlerFor } from "./dialers.js";
import {
  decodeOptions,
  fetchVMI,
  isDryRun,
  orInternalError,
  reply,
  type SubresourceReply,
} from "./subresource-app.js";
import {
  conflict,
  forbidden,
  internalError,
  virtualMachineInstanceResource,
  virtualMachineResource,
  type Status,
} from "./status.js";

export type PauseAction = "pause" | "unpause";

// Upstream's pause refuses with the VM's wording, its unpause with the VMI's.
export const VM_NOT_RUNNING = "VM is not running";
export const VMI_NOT_RUNNING = "VMI is not running";
export const VMI_ALREADY_PAUSED = "VMI is already paused";
export const VMI_NOT_PAUSED = "VMI is not paused";
export const VM_SNAPSHOT_IN_PROGRESS = "VM snapshot is in progress";
export const LIVENESS_PROBE_NOT_SUPPORTED =
  "Pausing VMIs with a non-GuestAgentPing LivenessProbe is not supported";
const PAUSED_CONDITION = "Paused";

export interface PauseBackend extends ConsoleBackend {
  getVM(namespace: string, name: string): Promise<VirtualMachine | undefined>;
}

export interface PauseProxyOptions {
  /** virt-handler's --console-server-port, where its REST endpoints are served too. */
  consoleServerPort: number;
  /** The deadline of the call to virt-handler. */
  timeoutMs?: number;
}

const vmiConflict = (vmi: VirtualMachineInstance, why: string): Status =>
  conflict(virtualMachineInstanceResource, vmi.metadata?.name ?? "", why);

export function validatePause(vmi: VirtualMachineInstance): Status | undefined {
  if (vmi.status?.phase !== "Running") return vmiConflict(vmi, VM_NOT_RUNNING);
  if (vmi.spec.livenessProbe && !vmi.spec.livenessProbe.guestAgentPing) {
    const name = JSON.stringify(vmi.metadata?.name ?? "");
    return forbidden(
      `virtualmachineinstance.kubevirt.io ${name} is forbidden: ${LIVENESS_PROBE_NOT_SUPPORTED}`,
    );
  }
  if (hasCondition(vmi.status, PAUSED_CONDITION)) return vmiConflict(vmi, VMI_ALREADY_PAUSED);
  return undefined;
}

export function validateUnpause(vmi: VirtualMachineInstance): Status | undefined {
  if (vmi.status?.phase !== "Running") return vmiConflict(vmi, VMI_NOT_RUNNING);
  if (!hasCondition(vmi.status, PAUSED_CONDITION)) return vmiConflict(vmi, VMI_NOT_PAUSED);
  return undefined;
}

export class PauseProxy {
  constructor(
    private readonly backend: PauseBackend,
    private readonly options: PauseProxyOptions,
  ) {}

  async handle(
    action: PauseAction,
    namespace: string,
    name: string,
    body: unknown,
  ): Promise<SubresourceReply> {
    return orInternalError(() => this.dispatch(action, namespace, name, body));
  }

  private async dispatch(
    action: PauseAction,
    namespace: string,
    name: string,
    body: unknown,
  ): Promise<SubresourceReply> {
    const schema = action === "pause" ? PauseOptionsSchema : UnpauseOptionsSchema;
    const options = decodeOptions<{ dryRun?: string[] }>(schema, body);
    if (!options.ok) return reply(options.status);
    if (action === "unpause") {
      // A VM whose snapshot is being taken stays paused until the snapshot is done.
      const vm = await this.backend.getVM(namespace, name);
      if (vm?.status?.snapshotInProgress !== undefined) {
        return reply(conflict(virtualMachineResource, name, VM_SNAPSHOT_IN_PROGRESS));
      }
    }
    const vmi = await fetchVMI(this.backend, namespace, name);
    if ("code" in vmi) return reply(vmi);
    const invalid = (action === "pause" ? validatePause : validateUnpause)(vmi);
    if (invalid) return reply(invalid);
    const handler = await virtHandlerFor(this.backend, vmi, this.options.consoleServerPort, action, "https");
    if (!handler.ok) return reply(handler.status);
    if (isDryRun(options.value)) return { code: 200 };
    const { url, tls } = handler.value;
    const put = await putVirtHandler(url, tls, JSON.stringify(body ?? {}), this.options.timeoutMs);
    return put.ok ? { code: 200 } : reply(internalError(put.message));
  }
}
