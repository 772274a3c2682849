import { z } from "zod";
import type { NetnsExec } from "../netns-exec.js";

// nftables through the nft tool (upstream pkg/network/driver/nft). A script given to `nft -f` is one
// transaction: it applies completely or not at all.

export type IPFamily = "ip" | "ip6";

export const IPv4: IPFamily = "ip";

const ListingSchema = z.object({ nftables: z.array(z.record(z.string(), z.unknown())) });

/** The objects of a table from `nft -j list table`, or undefined when the table does not exist. */
export async function listTable(
  exec: NetnsExec,
  family: IPFamily,
  table: string,
): Promise<Array<Record<string, unknown>> | undefined> {
  if (!(await tableExists(exec, family, table))) return undefined;
  const output = await exec.query("nft", ["-j", "list", "table", family, table]);
  return ListingSchema.parse(JSON.parse(output)).nftables;
}

export async function tableExists(exec: NetnsExec, family: IPFamily, table: string): Promise<boolean> {
  const output = await exec.query("nft", ["-j", "list", "tables", family]);
  return ListingSchema.parse(JSON.parse(output)).nftables.some((entry) => {
    const described = entry["table"];
    return (
      typeof described === "object" && described !== null && "name" in described && described.name === table
    );
  });
}

export async function runScript(exec: NetnsExec, script: string): Promise<void> {
  await exec.change("nft", ["-f", "-"], script);
}
