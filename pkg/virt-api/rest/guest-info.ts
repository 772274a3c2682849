// The guest agent subresources of a VMI (upstream pkg/virt-api/rest/subresource.go GuestOSInfo, UserList
// and FilesystemList over httpGetRequestHandler): the VMI must run and have its agent connected, then the
// VMI's virt-handler is asked over mutual TLS and its answer is passed on as the Go object. Upstream
// answers every failure of these three as a 500 whose plain-text body is the error's message, refusals
// included ("... VMI does not have guest agent connected"); so does this.
import type { z } from "zod";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import {
  FileSystemListWire,
  GuestAgentInfoWire,
  GuestOSUserListWire,
  fileSystemListJSON,
  guestAgentInfoJSON,
  userListJSON,
} from "../../api/guest-agent-info.js";
import { hasCondition } from "../../controller/conditions.js";
import { errorMessage } from "../../util/error-message.js";
import { VMI_NOT_RUNNING, type ConsoleBackend } from "./console.js";
import { getVirtHandler, virtHandlerFor } from "./dialers.js";
import { conflict, virtualMachineInstanceResource, type Status } from "./status.js";
import { fetchVMI } from "./subresource-app.js";

export type GuestInfoSubresource = "guestosinfo" | "userlist" | "filesystemlist";

export const GUEST_INFO_SUBRESOURCES: readonly GuestInfoSubresource[] = [
  "guestosinfo",
  "userlist",
  "filesystemlist",
];

export const VMI_GUEST_AGENT_ERR = "VMI does not have guest agent connected";
const AGENT_CONNECTED_CONDITION = "AgentConnected";

export type GuestInfoReply = { code: 200; json: object } | { code: 500; text: string };

export interface GuestInfoProxyOptions {
  /** virt-handler's --console-server-port, where its REST endpoints are served too. */
  consoleServerPort: number;
  /** The deadline of the call to virt-handler (upstream's handler client: 10 s). */
  timeoutMs?: number;
}

const entity =
  <T>(schema: z.ZodType<T>, write: (value: T) => object) =>
  (body: unknown): object =>
    write(schema.parse(body));

/** How each subresource's answer is read and written again, as upstream unmarshals into its Go type. */
const ENTITIES: Record<GuestInfoSubresource, (body: unknown) => object> = {
  guestosinfo: entity(GuestAgentInfoWire, guestAgentInfoJSON),
  userlist: entity(GuestOSUserListWire, userListJSON),
  filesystemlist: entity(FileSystemListWire, fileSystemListJSON),
};

/** The same check for all three: running, with the AgentConnected condition (of any status). */
export function validateGuestAgentConnected(vmi: VirtualMachineInstance): Status | undefined {
  const name = vmi.metadata?.name ?? "";
  if (vmi.status?.phase !== "Running") return conflict(virtualMachineInstanceResource, name, VMI_NOT_RUNNING);
  if (!hasCondition(vmi.status, AGENT_CONNECTED_CONDITION)) {
    return conflict(virtualMachineInstanceResource, name, VMI_GUEST_AGENT_ERR);
  }
  return undefined;
}

const failed = (text: string): GuestInfoReply => ({ code: 500, text });

export class GuestInfoProxy {
  constructor(
    private readonly backend: ConsoleBackend,
    private readonly options: GuestInfoProxyOptions,
  ) {}

  async handle(subresource: GuestInfoSubresource, namespace: string, name: string): Promise<GuestInfoReply> {
    try {
      return await this.dispatch(subresource, namespace, name);
    } catch (error) {
      return failed(errorMessage(error));
    }
  }

  private async dispatch(
    subresource: GuestInfoSubresource,
    namespace: string,
    name: string,
  ): Promise<GuestInfoReply> {
    const vmi = await fetchVMI(this.backend, namespace, name);
    if ("code" in vmi) return failed(vmi.message);
    const invalid = validateGuestAgentConnected(vmi);
    if (invalid) return failed(invalid.message);
    const handler = await virtHandlerFor(
      this.backend,
      vmi,
      this.options.consoleServerPort,
      subresource,
      "https",
    );
    if (!handler.ok) return failed(handler.status.message);
    const answer = await getVirtHandler(
      handler.value.url,
      handler.value.tls,
      "application/json",
      this.options.timeoutMs,
    );
    if (!answer.ok) return failed(answer.message);
    try {
      return { code: 200, json: ENTITIES[subresource](JSON.parse(answer.body.toString("utf8"))) };
    } catch (error) {
      return failed(errorMessage(error));
    }
  }
}
