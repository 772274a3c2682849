// virt-handler's client of a launcher's Cmd service (upstream virt-handler/cmd-client): version
// negotiation on connect, one deadline per call, and errors that name the command.
import * as grpc from "@grpc/grpc-js";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { DomainObject } from "../../../virt-launcher/virtwrap/api/domain-object.js";
import { parseDomainJSON } from "../../../virt-launcher/virtwrap/api/domain-json.js";
import type { DomainStats } from "../../../virt-launcher/virtwrap/stats/types.js";
import type { Sendable } from "../../grpc-unix.js";
import { UnixSocketClient } from "../../grpc-unix.js";
import { methodDefinition } from "../../proto.js";
import { highestCompatibleVersion } from "../../version.js";
import type { CmdInfoMethods } from "./server.js";
import type { CmdMethodName, CmdMethods, Response, VirtualMachineOptions, VMIRequest } from "./messages.js";
import { errorMessage } from "../../../util/error-message.js";
import {
  FileSystemArrayWire,
  GuestAgentInfoWire,
  GuestOSUserArrayWire,
  type FileSystemList,
  type GuestAgentInfo,
  type GuestOSUserList,
} from "../../../api/guest-agent-info.js";
import type { z } from "zod";

export const SHORT_TIMEOUT_MS = 5_000;
export const LONG_TIMEOUT_MS = 20_000;
/** Freeze waits longer: a guest's own freeze hooks (Windows VSS) may take up to a minute. */
export const EXTENDED_TIMEOUT_MS = 60_000;

/** Versions this client speaks; kept apart from CMD_VERSION so a mismatch shows up early. */
const SUPPORTED_CMD_VERSIONS = [1] as const;

export class LauncherCommandError extends Error {
  override name = "LauncherCommandError";
  constructor(
    message: string,
    /** The gRPC status code when the call itself failed (unavailable, deadline, ...). */
    readonly code?: grpc.status,
  ) {
    super(message);
  }
}

type Request<K extends CmdMethodName> = Sendable<CmdMethods[K]["request"]>;
type Reply<K extends CmdMethodName> = CmdMethods[K]["response"];
/** The methods that take a VMIRequest and answer a plain Response. */
type VMICommand = {
  [K in CmdMethodName]: CmdMethods[K] extends { request: VMIRequest; response: Response } ? K : never;
}[CmdMethodName];

export class LauncherClient {
  private constructor(private readonly connection: UnixSocketClient) {}

  /** Dials the launcher's socket and agrees on a Cmd version. */
  static async connect(socketPath: string): Promise<LauncherClient> {
    const connection = new UnixSocketClient(socketPath);
    try {
      await connection.waitForReady();
      const info = methodDefinition<object, CmdInfoMethods["Info"]["response"]>(
        "kubevirt.cmd.info.CmdInfo",
        "Info",
      );
      const { supportedCmdVersions } = await connection.call(info, {}, SHORT_TIMEOUT_MS);
      highestCompatibleVersion(supportedCmdVersions, SUPPORTED_CMD_VERSIONS);
    } catch (error) {
      connection.close();
      throw new LauncherCommandError(`could not check cmd server version: ${messageOf(error)}`);
    }
    return new LauncherClient(connection);
  }

  /** Any Cmd method; the answer as sent, without interpreting `response.success`. */
  call<K extends CmdMethodName>(
    method: K,
    request: Request<K>,
    timeoutMs = LONG_TIMEOUT_MS,
  ): Promise<Reply<K>> {
    const definition = methodDefinition<CmdMethods[K]["request"], Reply<K>>("kubevirt.cmd.v1.Cmd", method);
    return this.connection.call(definition, request, timeoutMs);
  }

  syncVirtualMachine(vmi: VirtualMachineInstance, options?: Sendable<VirtualMachineOptions>): Promise<void> {
    return this.sendVMI("SyncVMI", "SyncVirtualMachine", vmi, options);
  }
  pauseVirtualMachine(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("Pause", "PauseVirtualMachine", vmi);
  }
  unpauseVirtualMachine(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("Unpause", "UnpauseVirtualMachine", vmi);
  }
  shutdownVirtualMachine(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("Shutdown", "ShutdownVirtualMachine", vmi);
  }
  killVirtualMachine(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("Kill", "KillVirtualMachine", vmi);
  }
  deleteDomain(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("Delete", "DeleteVirtualMachine", vmi);
  }
  async freezeVirtualMachine(vmi: VirtualMachineInstance, unfreezeTimeoutSeconds: number): Promise<void> {
    const request = { vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) }, unfreezeTimeoutSeconds };
    const response = await this.guarded("Freeze", () =>
      this.call("FreezeVirtualMachine", request, EXTENDED_TIMEOUT_MS),
    );
    checkResponse("Freeze", response);
  }
  unfreezeVirtualMachine(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("Unfreeze", "UnfreezeVirtualMachine", vmi);
  }
  resetVirtualMachine(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("Reset", "ResetVirtualMachine", vmi);
  }
  softRebootVirtualMachine(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("SoftReboot", "SoftRebootVirtualMachine", vmi);
  }
  /** `options` is upstream's cmdclient.MigrationOptions as Go marshals it (field names as keys). */
  async migrateVirtualMachine(vmi: VirtualMachineInstance, options: object): Promise<void> {
    const request = {
      vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) },
      options: Buffer.from(JSON.stringify(options)),
    };
    const response = await this.guarded("Migrate", () =>
      this.call("MigrateVirtualMachine", request, LONG_TIMEOUT_MS),
    );
    checkResponse("Migrate", response);
  }
  syncMigrationTarget(vmi: VirtualMachineInstance, options?: Sendable<VirtualMachineOptions>): Promise<void> {
    return this.sendVMI("SyncMigrationTarget", "SyncMigrationTarget", vmi, options);
  }
  cancelVirtualMachineMigration(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("CancelMigration", "CancelVirtualMachineMigration", vmi);
  }
  signalTargetPodCleanup(vmi: VirtualMachineInstance): Promise<void> {
    return this.sendVMI("SignalTargetPodCleanup", "SignalTargetPodCleanup", vmi);
  }
  finalizeVirtualMachineMigration(
    vmi: VirtualMachineInstance,
    options?: Sendable<VirtualMachineOptions>,
  ): Promise<void> {
    return this.sendVMI("FinalizeVirtualMachineMigration", "FinalizeVirtualMachineMigration", vmi, options);
  }

  async ping(): Promise<void> {
    const response = await this.guarded("Ping", () => this.call("Ping", {}, SHORT_TIMEOUT_MS));
    checkResponse("Ping", response);
  }

  /** The launcher's domain, or undefined when none is defined yet. */
  async getDomain(): Promise<DomainObject | undefined> {
    const reply = await this.guarded("GetDomain", () => this.call("GetDomain", {}, SHORT_TIMEOUT_MS));
    checkResponse("GetDomain", reply.response);
    return reply.domain === "" ? undefined : parseDomainJSON(reply.domain);
  }

  /** The domain's statistics (upstream GetDomainStats, a short deadline); undefined when it has no domain. */
  async getDomainStats(): Promise<DomainStats | undefined> {
    const reply = await this.guarded("GetDomainStats", () =>
      this.call("GetDomainStats", {}, SHORT_TIMEOUT_MS),
    );
    checkResponse("GetDomainStats", reply.response);
    if (reply.domainStats === "") return undefined;
    let stats: unknown;
    try {
      stats = JSON.parse(reply.domainStats);
    } catch (error) {
      throw new LauncherCommandError(`error unmarshalling domain stats: ${messageOf(error)}`);
    }
    return stats !== null && typeof stats === "object" ? (stats as DomainStats) : undefined;
  }

  /** The VMI's display as an image and its MIME type (upstream GetScreenshot, a short deadline). */
  async getScreenshot(vmi: VirtualMachineInstance): Promise<{ mime: string; data: Buffer }> {
    const request = { vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) } };
    const reply = await this.guarded("GetScreenshot", () =>
      this.call("GetScreenshot", request, SHORT_TIMEOUT_MS),
    );
    checkResponse("GetScreenshot", reply.response);
    return { mime: reply.mime, data: reply.data };
  }

  /** What the launcher's agent poller read of the guest (empty before the agent answered). */
  async getGuestInfo(): Promise<GuestAgentInfo> {
    const reply = await this.guarded("GetGuestInfo", () => this.call("GetGuestInfo", {}, SHORT_TIMEOUT_MS));
    checkResponse("GetGuestInfo", reply.response);
    return parseAnswer(GuestAgentInfoWire, reply.guestInfoResponse, {}, "guest agent");
  }

  /** The users logged in on the guest. */
  async getUsers(): Promise<GuestOSUserList> {
    const reply = await this.guarded("GetUsers", () => this.call("GetUsers", {}, SHORT_TIMEOUT_MS));
    checkResponse("GetUsers", reply.response);
    return { items: parseAnswer(GuestOSUserArrayWire, reply.guestUserListResponse, null, "guest user list") };
  }

  /** The filesystems mounted in the guest. */
  async getFilesystems(): Promise<FileSystemList> {
    const reply = await this.guarded("GetFilesystems", () =>
      this.call("GetFilesystems", {}, SHORT_TIMEOUT_MS),
    );
    checkResponse("GetFilesystems", reply.response);
    return {
      items: parseAnswer(FileSystemArrayWire, reply.guestFilesystemsResponse, null, "guest filesystem list"),
    };
  }

  async getQemuVersion(): Promise<string> {
    const reply = await this.guarded("GetQemuVersion", () =>
      this.call("GetQemuVersion", {}, SHORT_TIMEOUT_MS),
    );
    checkResponse("GetQemuVersion", reply.response);
    if (!reply.version) throw new LauncherCommandError("error getting the qemu version");
    return reply.version;
  }

  close(): void {
    this.connection.close();
  }

  private async sendVMI(
    commandName: string,
    method: VMICommand,
    vmi: VirtualMachineInstance,
    options: Sendable<VirtualMachineOptions> = {},
  ): Promise<void> {
    const request = { vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) }, options };
    const response = await this.guarded(commandName, () => this.call(method, request, LONG_TIMEOUT_MS));
    checkResponse(commandName, response);
  }

  private async guarded<T>(commandName: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const status = typeof code === "number" ? (code as grpc.status) : undefined;
      const codeName = status === undefined ? "an error" : grpc.status[status];
      throw new LauncherCommandError(
        `command ${commandName} failed with ${codeName}: ${messageOf(error)}`,
        status,
      );
    }
  }
}

function checkResponse(commandName: string, response: Response | null): void {
  if (response && !response.success && response.message !== "") {
    throw new LauncherCommandError(
      `server error. command ${commandName} failed: ${JSON.stringify(response.message)}`,
    );
  }
}

/** The JSON an answer carries, read as upstream unmarshals it; an empty answer is the zero value. */
function parseAnswer<T>(schema: z.ZodType<T>, json: string, empty: unknown, what: string): T {
  if (json === "") return schema.parse(empty);
  try {
    return schema.parse(JSON.parse(json));
  } catch (error) {
    throw new LauncherCommandError(`error unmarshalling ${what} response: ${messageOf(error)}`);
  }
}

function messageOf(error: unknown): string {
  return errorMessage(error);
}
