// virt-handler's guest agent endpoints (upstream pkg/virt-handler/rest/lifecycle.go GetGuestInfo, GetUsers
// and GetFilesystems): virt-api GETs `/v1/namespaces/{ns}/virtualmachineinstances/{name}/guestosinfo|
// userlist|filesystemlist` over the console server's mutual TLS, and the VMI's launcher answers from what
// its agent poller read. 200 with the object as JSON; a failure is a 500 with its message in plain text.
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileSystemListJSON, guestAgentInfoJSON, userListJSON } from "../../api/guest-agent-info.js";
import { errorMessage } from "../../util/error-message.js";
import type { LauncherCommands } from "../launcher-clients.js";
import {
  parseVMISubresourcePath,
  vmiLauncher,
  writeAnswer,
  type LauncherLookup,
  type RestAnswer,
} from "./common.js";
import { METHOD_NOT_ALLOWED } from "./console.js";

export type GuestInfoSubresource = "guestosinfo" | "userlist" | "filesystemlist";

export const GUEST_INFO_SUBRESOURCES: readonly GuestInfoSubresource[] = [
  "guestosinfo",
  "userlist",
  "filesystemlist",
];

type GuestInfoLauncher = Pick<LauncherCommands, "getGuestInfo" | "getUsers" | "getFilesystems">;

export type GuestInfoHandlerOptions = LauncherLookup<GuestInfoLauncher>;

/** What each endpoint asks the launcher, and upstream's log line when that fails. */
const ENDPOINTS: Record<
  GuestInfoSubresource,
  { read: (launcher: GuestInfoLauncher) => Promise<object>; failed: string }
> = {
  guestosinfo: {
    read: async (launcher) => guestAgentInfoJSON(await launcher.getGuestInfo()),
    failed: "Failed to get guest info",
  },
  userlist: {
    read: async (launcher) => userListJSON(await launcher.getUsers()),
    failed: "Failed to get user list",
  },
  filesystemlist: {
    read: async (launcher) => fileSystemListJSON(await launcher.getFilesystems()),
    failed: "Failed to get file systems",
  },
};

export class GuestInfoHandler {
  constructor(private readonly options: GuestInfoHandlerOptions) {}

  async serve(
    method: string,
    target: { namespace: string; name: string; subresource: GuestInfoSubresource },
  ): Promise<RestAnswer> {
    if (method !== "GET") return METHOD_NOT_ALLOWED;
    const found = await vmiLauncher(this.options, target);
    if ("code" in found) return found;
    const endpoint = ENDPOINTS[target.subresource];
    try {
      return { code: 200, json: await endpoint.read(found.launcher) };
    } catch (error) {
      this.options.logger.error({ ...target, err: error }, endpoint.failed);
      return { code: 500, message: errorMessage(error) };
    }
  }

  /** Serves a plain HTTP request of the console server when it is one of these endpoints; false otherwise. */
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean {
    const target = parseVMISubresourcePath(request.url ?? "", GUEST_INFO_SUBRESOURCES);
    if (!target) return false;
    request.resume();
    void this.serve(request.method ?? "", target).then((answer) => writeAnswer(response, answer));
    return true;
  }
}
