// The one way every VMI subresource that virt-handler performs goes (upstream subresource.go
// putRequestHandlerWithErrorPostProcessing and prepareConnection): the body is decoded, the VMI fetched and
// checked, the virt-handler on its node looked up, and the request PUT there over mutual TLS. 200 with no
// body, as upstream's handlers answer; a dry run stops after the checks and the handler lookup. What differs
// between pause, freeze, soft reboot ... is only their HandlerPutVerb.
import type { VirtualMachine, VirtualMachineInstance } from "../../api/generated/v1.js";
import type { ConsoleBackend } from "./console.js";
import { putVirtHandler, virtHandlerFor } from "./dialers.js";
import { fetchVMI, orInternalError, reply, type SubresourceReply } from "./subresource-app.js";
import { conflict, internalError, virtualMachineInstanceResource, type Status } from "./status.js";

export interface HandlerPutBackend extends ConsoleBackend {
  getVM(namespace: string, name: string): Promise<VirtualMachine | undefined>;
}

export interface HandlerPutOptions {
  /** virt-handler's --console-server-port, where its REST endpoints are served too. */
  consoleServerPort: number;
  /** The deadline of the call to virt-handler. */
  timeoutMs?: number;
}

/** What one subresource adds to the shared path; the handler endpoint has the subresource's name. */
export interface HandlerPutVerb {
  /** Decodes the body (default: not read, passed on as sent); a dry run ends after the checks. */
  decode?(body: unknown): { ok: true; dryRun: boolean } | { ok: false; status: Status };
  /** A check before the VMI is read (unpause: the VM's snapshot). */
  precheck?(backend: HandlerPutBackend, namespace: string, name: string): Promise<Status | undefined>;
  validate?(vmi: VirtualMachineInstance): Status | undefined;
  /** Upstream's errorPostProcessing: rewords any failure's message, given the VMI once it was read. */
  reword?(vmi: VirtualMachineInstance | undefined, message: string): string;
}

/** A Conflict on the VMI with upstream's wording. */
export const vmiConflict = (vmi: VirtualMachineInstance, why: string): Status =>
  conflict(virtualMachineInstanceResource, vmi.metadata?.name ?? "", why);

export class HandlerPutProxy<V extends string> {
  readonly verbs: readonly V[];

  constructor(
    private readonly backend: HandlerPutBackend,
    private readonly specs: Readonly<Record<V, HandlerPutVerb>>,
    private readonly options: HandlerPutOptions,
  ) {
    this.verbs = Object.keys(specs) as V[];
  }

  async handle(verb: V, namespace: string, name: string, body: unknown): Promise<SubresourceReply> {
    return orInternalError(() => this.dispatch(this.specs[verb], verb, namespace, name, body));
  }

  private async dispatch(
    spec: HandlerPutVerb,
    verb: V,
    namespace: string,
    name: string,
    body: unknown,
  ): Promise<SubresourceReply> {
    const decoded = spec.decode ? spec.decode(body) : { ok: true as const, dryRun: false };
    if (!decoded.ok) return reply(decoded.status);
    const refused = await spec.precheck?.(this.backend, namespace, name);
    if (refused) return reply(refused);
    const fetched = await fetchVMI(this.backend, namespace, name);
    const reworded = (status: Status, vmi?: VirtualMachineInstance): SubresourceReply =>
      reply(spec.reword ? { ...status, message: spec.reword(vmi, status.message) } : status);
    if ("code" in fetched) return reworded(fetched);
    const vmi = fetched;
    const invalid = spec.validate?.(vmi);
    if (invalid) return reworded(invalid, vmi);
    const handler = await virtHandlerFor(this.backend, vmi, this.options.consoleServerPort, verb, "https");
    if (!handler.ok) return reworded(handler.status, vmi);
    const { url, tls } = handler.value;
    if (decoded.dryRun) return { code: 200 };
    const put = await putVirtHandler(url, tls, JSON.stringify(body ?? {}), this.options.timeoutMs);
    if (put.ok) return { code: 200 };
    return reply(internalError(spec.reword ? spec.reword(vmi, put.message) : put.message));
  }
}
