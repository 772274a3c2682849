// virtctl version: the client's version, then the server's from the aggregated API.
import { z } from "zod";
import type { Command } from "../command.js";
import { errorMessage } from "../../util/error-message.js";
import { helpFlag } from "../flags.js";
import type { SubresourceClient } from "../kubecli/subresources.js";
import { SUBRESOURCE_GROUP } from "../kubecli/subresources.js";
import type { VersionInfo } from "./info.js";
import { VersionInfoSchema, clientVersion, formatVersionInfo } from "./info.js";

const APIGroupSchema = z.looseObject({ preferredVersion: z.looseObject({ groupVersion: z.string() }) });

/** Like upstream: ask the group for its preferred version, then that version's /version. */
export async function serverVersion(client: SubresourceClient): Promise<VersionInfo> {
  const group = APIGroupSchema.parse(await client.getJson(`/apis/${SUBRESOURCE_GROUP}`));
  return VersionInfoSchema.parse(
    await client.getJson(`/apis/${group.preferredVersion.groupVersion}/version`),
  );
}

export const versionCommand: Command = {
  name: "version",
  use: "version",
  short: "Print the client and server version information.",
  example: "  # Print the client and server versions for the current context:\n  {{ProgramName}} version",
  flags: [
    {
      name: "client",
      short: "c",
      kind: "bool",
      defaultValue: false,
      usage: "Client version only (no server required).",
    },
    helpFlag("version"),
  ],
  argCount: 0,
  async run(context) {
    context.io.stdout.write(`Client Version: ${formatVersionInfo(clientVersion())}\n`);
    if (context.flags.bool("client")) return;
    let client: SubresourceClient;
    try {
      client = (await context.client()).client;
    } catch (error) {
      throw new Error(`failed to get virtClient config: ${errorMessage(error)}`);
    }
    let server: VersionInfo;
    try {
      server = await serverVersion(client);
    } catch (error) {
      throw new Error(`failed to get server version: ${errorMessage(error)}`);
    }
    context.io.stdout.write(`Server Version: ${formatVersionInfo(server)}\n`);
  },
};

/** Upstream's hint after a failed command when client and server differ in major or minor version. */
export async function versionMismatchWarning(client: SubresourceClient): Promise<string | undefined> {
  const server = await serverVersion(client);
  const clientInfo = clientVersion();
  const majorMinor = (version: string) => version.replace(/^v/, "").split(".").slice(0, 2).join(".");
  if (majorMinor(server.gitVersion) === majorMinor(clientInfo.gitVersion)) return undefined;
  return (
    "You are using a client virtctl version that is different from the KubeVirt version running in the cluster\n" +
    `Client Version: ${clientInfo.gitVersion}\nServer Version: ${server.gitVersion}\n`
  );
}
