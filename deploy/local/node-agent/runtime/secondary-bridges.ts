import { writeFile } from "node:fs/promises";
import type { IpTool } from "./ip-tool.js";

// A bridge for a secondary network: pods' extra interfaces (a NetworkAttachmentDefinition's bridge plugin)
// join it on every node, so it is one L2 segment spanning the nodes. The host takes no part in it: no IPv4
// address, no IPv6 link-local address, no forwarding, so nothing on it is routed anywhere by the host
// (and the guard drops what would be).

export async function ensureSecondaryBridge(ip: IpTool, name: string): Promise<void> {
  await ip.ensureBridge(name);
  await writeFile(`/proc/sys/net/ipv6/conf/${name}/disable_ipv6`, "1\n");
  await writeFile(`/proc/sys/net/ipv4/conf/${name}/forwarding`, "0\n");
}
