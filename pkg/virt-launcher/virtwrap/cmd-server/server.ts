// The launcher's Cmd service (upstream virtwrap/cmd-server/server.go): each command parses the
// VMI from the request, hands it to the domain manager, and answers success or the failure's
// message. Commands not ported yet answer that they are not supported yet.
import * as grpc from "@grpc/grpc-js";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { parseDefinition } from "../../../api/parse.js";
import type { Logger } from "../../../controller/log.js";
import type {
  CmdMethodName,
  CmdMethods,
  MigrationRequest,
  Response,
  VirtualMachineOptions,
  VMI,
} from "../../../handler-launcher-com/cmd/v1/messages.js";
import { CMD_METHOD_NAMES } from "../../../handler-launcher-com/cmd/v1/messages.js";
import { addCmdService } from "../../../handler-launcher-com/cmd/v1/server.js";
import type { Sendable, UnaryHandlers } from "../../../handler-launcher-com/grpc-unix.js";
import { listenOnSocket, stopServer } from "../../../handler-launcher-com/grpc-unix.js";
import { serviceDefinition } from "../../../handler-launcher-com/proto.js";
import { LibvirtError } from "../../../libvirt/errors.js";
import { domainToJSON } from "../api/domain-json.js";
import { fileSystemsJSON, guestAgentInfoJSON, usersJSON } from "../../../api/guest-agent-info.js";
import type { LibvirtDomainManager } from "../manager.js";
import { parseMigrationOptions } from "../live-migration-params.js";
import { errorMessage as messageOf } from "../../../util/error-message.js";
import type { DomainStats } from "../stats/types.js";

export type DomainManager = Pick<
  LibvirtDomainManager,
  | "syncVMI"
  | "pauseVMI"
  | "unpauseVMI"
  | "freezeVMI"
  | "unfreezeVMI"
  | "resetVMI"
  | "softRebootVMI"
  | "signalShutdownVMI"
  | "killVMI"
  | "deleteVMI"
  | "listAllDomains"
  | "getQemuVersion"
  | "getScreenshot"
  | "getGuestInfo"
  | "getUsers"
  | "getFilesystems"
  | "migrateVMI"
  | "prepareMigrationTarget"
  | "cancelVMIMigration"
  | "finalizeVirtualMachineMigration"
>;

export interface LauncherServerOptions {
  manager: DomainManager;
  allowEmulation: boolean;
  log: Logger;
  /**
   * This pod's name (POD_NAME) and what SignalTargetPodCleanup sets when it names this pod as the target of
   * a failed migration (upstream's VIRT_LAUNCHER_TARGET_POD_EXIT_SIGNAL): the launcher stops waiting for a
   * domain that will never come and exits.
   */
  targetPodExit?: { podName: string | undefined; signal: AbortController };
  /** The domain's statistics for GetDomainStats (undefined: no domain); absent: not supported. */
  domainStats?: () => Promise<DomainStats | undefined>;
}

export const INVALID_VMI_MESSAGE = "No valid vmi object present in command server request";

/** What the handler reads from a failure: libvirt's code and domain when libvirt failed. */
export function errorMessage(error: unknown): string {
  if (error instanceof LibvirtError) {
    return `LibvirtError(Code=${error.code}, Domain=${error.domain}, Message='${error.message}')`;
  }
  return messageOf(error);
}

export function notSupportedMessage(method: CmdMethodName): string {
  return `${method} is not supported yet by kubevirt-ts`;
}

function vmiFromRequest(request: VMI | null): VirtualMachineInstance | undefined {
  if (!request) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(request.vmiJson.toString("utf8"));
  } catch {
    return undefined;
  }
  const parsed = parseDefinition("v1.VirtualMachineInstance", json);
  return parsed.ok ? parsed.value : undefined;
}

type VMIAction = (vmi: VirtualMachineInstance, options: VirtualMachineOptions | null) => Promise<void>;

export class Launcher {
  constructor(private readonly options: LauncherServerOptions) {}

  /** Runs `action` on the request's VMI and reports the outcome the way upstream does. */
  private async withVMI(
    what: string,
    request: { vmi: VMI | null; options?: VirtualMachineOptions | null },
    action: VMIAction,
  ): Promise<Response> {
    const vmi = vmiFromRequest(request.vmi);
    if (!vmi) return { success: false, message: INVALID_VMI_MESSAGE };
    const { log } = this.options;
    const object = { namespace: vmi.metadata?.namespace, name: vmi.metadata?.name, uid: vmi.metadata?.uid };
    try {
      await action(vmi, request.options ?? null);
    } catch (error) {
      log.error({ ...object, err: error }, `Failed to ${what} vmi`);
      return { success: false, message: errorMessage(error) };
    }
    log.info(object, `${what} vmi done`);
    return { success: true, message: "" };
  }

  /** The handlers for every Cmd method. */
  handlers(): UnaryHandlers<CmdMethods> {
    const { manager, allowEmulation } = this.options;
    const unsupported = Object.fromEntries(
      CMD_METHOD_NAMES.map((method) => [method, () => Promise.resolve(notSupported(method))]),
    ) as unknown as UnaryHandlers<CmdMethods>;
    return {
      ...unsupported,
      SyncVirtualMachine: (request) =>
        this.withVMI("sync", request, (vmi, options) => manager.syncVMI(vmi, allowEmulation, options)),
      PauseVirtualMachine: (request) => this.withVMI("pause", request, (vmi) => manager.pauseVMI(vmi)),
      UnpauseVirtualMachine: (request) => this.withVMI("unpause", request, (vmi) => manager.unpauseVMI(vmi)),
      FreezeVirtualMachine: (request) =>
        this.withVMI("freeze", request, (vmi) => manager.freezeVMI(vmi, request.unfreezeTimeoutSeconds)),
      UnfreezeVirtualMachine: (request) =>
        this.withVMI("unfreeze", request, (vmi) => manager.unfreezeVMI(vmi)),
      ResetVirtualMachine: (request) => this.withVMI("reset", request, (vmi) => manager.resetVMI(vmi)),
      SoftRebootVirtualMachine: (request) =>
        this.withVMI("soft reboot", request, (vmi) => manager.softRebootVMI(vmi)),
      ShutdownVirtualMachine: (request) =>
        this.withVMI("signal shutdown for", request, (vmi) => manager.signalShutdownVMI(vmi)),
      KillVirtualMachine: (request) => this.withVMI("kill", request, (vmi) => manager.killVMI(vmi)),
      DeleteVirtualMachine: (request) => this.withVMI("delete", request, (vmi) => manager.deleteVMI(vmi)),
      MigrateVirtualMachine: (request) => this.migrate(request),
      SyncMigrationTarget: (request) =>
        this.withVMI("prepare migration target pod for", request, (vmi, options) =>
          manager.prepareMigrationTarget(vmi, allowEmulation, options),
        ),
      CancelVirtualMachineMigration: (request) =>
        this.withVMI("abort live migration of", request, (vmi) => manager.cancelVMIMigration(vmi)),
      FinalizeVirtualMachineMigration: (request) =>
        this.withVMI("finalize migration of", request, (vmi, options) =>
          manager.finalizeVirtualMachineMigration(vmi, options),
        ),
      SignalTargetPodCleanup: (request) => Promise.resolve(this.signalTargetPodCleanup(request.vmi)),
      Ping: () => Promise.resolve({ success: true, message: "" }),
      GetDomain: () => this.getDomain(),
      GetDomainStats: () => this.getDomainStats(),
      GetScreenshot: (request) => this.getScreenshot(request.vmi),
      // The agent's data as the poller last read it: always answered, empty before the agent spoke.
      GetGuestInfo: () =>
        answerJSON(() => ({ guestInfoResponse: JSON.stringify(guestAgentInfoJSON(manager.getGuestInfo())) })),
      GetUsers: () =>
        answerJSON(() => ({ guestUserListResponse: JSON.stringify(usersJSON(manager.getUsers())) })),
      GetFilesystems: () =>
        answerJSON(() => ({
          guestFilesystemsResponse: JSON.stringify(fileSystemsJSON(manager.getFilesystems())),
        })),
      GetQemuVersion: () =>
        manager.getQemuVersion().then(
          (version) => ({ response: { success: true, message: "" }, version }),
          (error: unknown) => ({ response: { success: false, message: errorMessage(error) } }),
        ),
    };
  }

  /** Upstream SignalTargetPodCleanup: only a request naming this pod as the migration's target counts. */
  private signalTargetPodCleanup(request: VMI | null): Response {
    const vmi = vmiFromRequest(request);
    if (!vmi) return { success: false, message: INVALID_VMI_MESSAGE };
    const exit = this.options.targetPodExit;
    const podName = exit?.podName;
    if (podName && vmi.status?.migrationState?.targetPod === podName) {
      exit.signal.abort();
      this.options.log.info(
        { namespace: vmi.metadata?.namespace, name: vmi.metadata?.name },
        `Signaled target pod ${podName} to cleanup`,
      );
    }
    return { success: true, message: "" };
  }

  /** Upstream MigrateVirtualMachine: the options are checked before the migration starts in the background. */
  private migrate(request: MigrationRequest): Promise<Response> {
    return this.withVMI("migrate", { vmi: request.vmi }, (vmi) =>
      Promise.resolve().then(() =>
        this.options.manager.migrateVMI(vmi, parseMigrationOptions(request.options)),
      ),
    );
  }

  private async getScreenshot(
    request: VMI | null,
  ): Promise<Sendable<CmdMethods["GetScreenshot"]["response"]>> {
    const vmi = vmiFromRequest(request);
    if (!vmi) return { response: { success: false, message: INVALID_VMI_MESSAGE } };
    try {
      const { mime, data } = await this.options.manager.getScreenshot(vmi);
      return { response: { success: true, message: "" }, mime, data };
    } catch (error) {
      this.options.log.error({ name: vmi.metadata?.name, err: error }, "Failed to screenshot");
      return { response: { success: false, message: errorMessage(error) } };
    }
  }

  /** Upstream GetDomainStats: the statistics as JSON, `null` when there is no domain. */
  private async getDomainStats(): Promise<Sendable<CmdMethods["GetDomainStats"]["response"]>> {
    const read = this.options.domainStats;
    if (!read) return { response: { success: false, message: notSupportedMessage("GetDomainStats") } };
    try {
      const stats = await read();
      return { response: { success: true, message: "" }, domainStats: JSON.stringify(stats ?? null) };
    } catch (error) {
      return { response: { success: false, message: errorMessage(error) } };
    }
  }

  private async getDomain(): Promise<Sendable<CmdMethods["GetDomain"]["response"]>> {
    try {
      const [domain] = await this.options.manager.listAllDomains();
      return { response: { success: true, message: "" }, domain: domain ? domainToJSON(domain) : "" };
    } catch (error) {
      return { response: { success: false, message: errorMessage(error) } };
    }
  }
}

/** `answer` with a successful response, or the failure's message (upstream's marshalling errors). */
function answerJSON<T extends object>(answer: () => T): Promise<(T | object) & { response: Response }> {
  try {
    return Promise.resolve({ ...answer(), response: { success: true, message: "" } });
  } catch (error) {
    return Promise.resolve({ response: { success: false, message: errorMessage(error) } });
  }
}

/** A "not supported yet" answer shaped for the method: wrapped in `response` unless the method
 * answers a bare Response. */
function notSupported(method: CmdMethodName): Sendable<Response> | { response: Response } {
  const response = { success: false, message: notSupportedMessage(method) };
  const definition = serviceDefinition("kubevirt.cmd.v1.Cmd")[method] as {
    responseType?: { type?: { name?: string } };
  };
  return definition.responseType?.type?.name === "Response" ? response : { response };
}

/** Serves the Cmd service on `socketPath` until the returned stop function is called. */
export async function runServer(
  socketPath: string,
  launcher: Launcher,
): Promise<{ stop: () => Promise<void> }> {
  const server = new grpc.Server();
  addCmdService(server, launcher.handlers());
  await listenOnSocket(server, socketPath);
  return { stop: () => stopServer(server) };
}
