// The VM lifecycle subresources over the cluster: fetch the VM and its VMI, decide (lifecycle.ts),
// perform the writes, and map failures to upstream's Status errors. 202 Accepted on success.
import type { z } from "zod";
import {
  RestartOptionsSchema,
  StartOptionsSchema,
  StopOptionsSchema,
  type VirtualMachine,
  type VirtualMachineInstance,
} from "../../api/generated/v1.js";
import {
  checkRestartOptions,
  checkStopOptions,
  decideRestart,
  decideStart,
  decideStop,
  FORCED_RESTART_POD_GRACE_PERIOD_SECONDS,
  launcherPodToDelete,
  type Decision,
} from "./lifecycle.js";
import { AppLabel, CreatedByLabel } from "../../util/constants.js";
import { JSON_PATCH_TEST_FAILED, type JsonPatchOperation } from "./patch.js";
import {
  badRequest,
  conflict,
  internalError,
  notFound,
  virtualMachineInstanceResource,
  virtualMachineResource,
  type Status,
} from "./status.js";
import { errorMessage } from "../../util/error-message.js";

/** What the lifecycle handlers need from the cluster; `undefined` means NotFound. */
export interface LifecycleClient {
  getVM(namespace: string, name: string): Promise<VirtualMachine | undefined>;
  getVMI(namespace: string, name: string): Promise<VirtualMachineInstance | undefined>;
  patchVM(namespace: string, name: string, patch: JsonPatchOperation[], dryRun: boolean): Promise<void>;
  patchVMStatus(namespace: string, name: string, patch: JsonPatchOperation[], dryRun: boolean): Promise<void>;
  patchVMI(namespace: string, name: string, patch: JsonPatchOperation[], dryRun: boolean): Promise<void>;
  /** Names of the pods matching both selectors. */
  listPodNames(namespace: string, labelSelector: string, fieldSelector: string): Promise<string[]>;
  /** Deletes a pod; one already gone is no error. */
  deletePod(namespace: string, name: string, gracePeriodSeconds: number, dryRun: boolean): Promise<void>;
}

export interface SubresourceReply {
  code: number;
  body?: Status;
}

export type LifecycleAction = "start" | "stop" | "restart";

const ACCEPTED: SubresourceReply = { code: 202 };
export const reply = (status: Status): SubresourceReply => ({ code: status.code, body: status });

/** A subresource's work, answered as upstream's handlers answer anything unexpected: a 500 Status. */
export async function orInternalError(work: () => Promise<SubresourceReply>): Promise<SubresourceReply> {
  try {
    return await work();
  } catch (error) {
    return reply(internalError(errorMessage(error)));
  }
}

/** Upstream decodes an empty body as no options and anything else strictly. */
export function decodeOptions<T>(
  schema: z.ZodType<T>,
  body: unknown,
): { ok: true; value: T } | { ok: false; status: Status } {
  if (body === undefined || body === null || body === "") return { ok: true, value: {} as T };
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const detail = issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid body";
  return { ok: false, status: badRequest(`Can not unmarshal Request body to struct, error: ${detail}`) };
}

export const isDryRun = (options: { dryRun?: string[] }): boolean => options.dryRun?.[0] === "All";

/** Upstream's fetchVirtualMachine: the VM, or NotFound, or the failure as an InternalError. */
export async function fetchVM(
  client: Pick<LifecycleClient, "getVM">,
  namespace: string,
  name: string,
): Promise<VirtualMachine | Status> {
  try {
    return (await client.getVM(namespace, name)) ?? notFound(virtualMachineResource, name);
  } catch (error) {
    return internalError(`unable to retrieve vm [${name}]: ${errorMessage(error)}`);
  }
}

/** Upstream's FetchVirtualMachineInstance: the VMI, or NotFound, or the failure as an InternalError. */
export async function fetchVMI(
  client: Pick<LifecycleClient, "getVMI">,
  namespace: string,
  name: string,
): Promise<VirtualMachineInstance | Status> {
  try {
    return (await client.getVMI(namespace, name)) ?? notFound(virtualMachineInstanceResource, name);
  } catch (error) {
    return internalError(`unable to retrieve vmi [${name}]: ${errorMessage(error)}`);
  }
}

/** Upstream's FetchVirtualMachineInstanceForVM: the VM's VMI, once the VM created it and only if it owns it. */
export async function fetchVMIForVM(
  client: Pick<LifecycleClient, "getVM" | "getVMI">,
  namespace: string,
  name: string,
): Promise<VirtualMachineInstance | Status> {
  const vm = await fetchVM(client, namespace, name);
  if ("code" in vm) return vm;
  if (vm.status?.created !== true) return conflict(virtualMachineResource, name, "VMI is not started");
  const vmi = await fetchVMI(client, namespace, name);
  if ("code" in vmi) return vmi;
  const owned = (vmi.metadata?.ownerReferences ?? []).some((ref) => ref.uid === vm.metadata?.uid);
  // Upstream prints the (nil) error of the lookup that succeeded.
  return owned ? vmi : internalError(`unable to retrieve vmi [${name}] for vm: <nil>`);
}

export class SubresourceApp {
  constructor(private readonly client: LifecycleClient) {}

  async handle(
    action: LifecycleAction,
    namespace: string,
    name: string,
    body: unknown,
  ): Promise<SubresourceReply> {
    return orInternalError(() => this.dispatch(action, namespace, name, body));
  }

  private async dispatch(
    action: LifecycleAction,
    namespace: string,
    name: string,
    body: unknown,
  ): Promise<SubresourceReply> {
    const schema = { start: StartOptionsSchema, stop: StopOptionsSchema, restart: RestartOptionsSchema }[
      action
    ];
    const options = decodeOptions<{ dryRun?: string[]; gracePeriodSeconds?: number; gracePeriod?: number }>(
      schema,
      body,
    );
    if (!options.ok) return reply(options.status);
    // Options are checked before the VM is fetched, as upstream's restart does.
    const invalid =
      action === "restart"
        ? checkRestartOptions(options.value)
        : action === "stop"
          ? checkStopOptions(options.value)
          : undefined;
    if (invalid) return reply(invalid);
    const vm = await fetchVM(this.client, namespace, name);
    if ("code" in vm) return reply(vm);
    const vmi = await this.client.getVMI(namespace, name);
    const decide = { start: decideStart, stop: decideStop, restart: decideRestart }[action];
    const decision: Decision = decide(vm, vmi, options.value);
    if ("refused" in decision) return reply(decision.refused);
    return this.perform(decision.writes, namespace, name, isDryRun(options.value));
  }

  private async perform(
    writes: Extract<Decision, { writes: unknown }>["writes"],
    namespace: string,
    name: string,
    dryRun: boolean,
  ): Promise<SubresourceReply> {
    for (const write of writes) {
      try {
        if (write.kind === "patchVM") await this.client.patchVM(namespace, name, write.patch, dryRun);
        else if (write.kind === "patchVMStatus")
          await this.client.patchVMStatus(namespace, name, write.patch, dryRun);
        else if (write.kind === "patchVMI") await this.client.patchVMI(namespace, name, write.patch, dryRun);
        else await this.deleteLauncherPod(namespace, write.vmi, dryRun);
      } catch (error) {
        const message = errorMessage(error);
        // A failed `test` operation means the VM changed under us: the caller may retry.
        if (message.includes(JSON_PATCH_TEST_FAILED))
          return reply(conflict(virtualMachineResource, name, message));
        return reply(internalError(message));
      }
    }
    return ACCEPTED;
  }

  /**
   * Upstream deletes even on a dry run; here a dry run reaches the apiserver as one, so that it changes
   * nothing, as its name says.
   */
  private async deleteLauncherPod(namespace: string, vmi: VirtualMachineInstance, dryRun: boolean) {
    const labels = `${AppLabel}=virt-launcher,${CreatedByLabel}=${vmi.metadata?.uid ?? ""}`;
    const running = await this.client.listPodNames(namespace, labels, "status.phase==Running");
    const pod = launcherPodToDelete(running, vmi);
    if (pod === undefined) return;
    await this.client.deletePod(namespace, pod, FORCED_RESTART_POD_GRACE_PERIOD_SECONDS, dryRun);
  }
}
