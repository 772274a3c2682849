import { z } from "zod";
import type { NetnsExec } from "./netns-exec.js";

// iproute2's JSON output (`ip -j -d addr show`, `ip -j route show`), parsed with zod: the only way the
// setup learns what the pod's links look like.

const AddressInfoSchema = z.looseObject({
  family: z.string(),
  local: z.string(),
  prefixlen: z.number(),
  scope: z.string().optional(),
});

const LinkSchema = z.looseObject({
  ifindex: z.number(),
  ifname: z.string(),
  flags: z.array(z.string()).default([]),
  mtu: z.number(),
  address: z.string().optional(),
  master: z.string().optional(),
  linkinfo: z
    .looseObject({
      info_kind: z.string().optional(),
      info_data: z
        .looseObject({
          type: z.string().optional(),
          multi_queue: z.boolean().optional(),
          user: z.number().optional(),
          group: z.number().optional(),
        })
        .optional(),
      info_slave_data: z.looseObject({ learning: z.boolean().optional() }).optional(),
    })
    .optional(),
  addr_info: z.array(AddressInfoSchema).default([]),
});

export type IpLink = z.infer<typeof LinkSchema>;

const RouteSchema = z.looseObject({
  dst: z.string(),
  gateway: z.string().optional(),
  dev: z.string().optional(),
  protocol: z.string().optional(),
});

export type IpRoute = z.infer<typeof RouteSchema>;

/** Every link of the namespace with its details and addresses. */
export async function listLinks(exec: NetnsExec): Promise<IpLink[]> {
  const output = await exec.query("ip", ["-j", "-d", "addr", "show"]);
  return z.array(LinkSchema).parse(JSON.parse(output));
}

/** The IPv4 routes of the main table. */
export async function listIPv4Routes(exec: NetnsExec): Promise<IpRoute[]> {
  const output = await exec.query("ip", ["-j", "-4", "route", "show"]);
  return z.array(RouteSchema).parse(JSON.parse(output));
}

export function isAdministrativelyUp(link: IpLink): boolean {
  return link.flags.includes("UP");
}
