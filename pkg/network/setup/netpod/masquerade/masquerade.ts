import { createHash } from "node:crypto";
import type { NetnsExec } from "../../../driver/netns-exec.js";
import { IPv4, listTable, runScript } from "../../../driver/nft/nft.js";
import type { MasqueradeNatInput } from "./rules.js";
import {
  NAT_CHAINS,
  NAT_TABLE,
  renderMasqueradeRules,
  renderNatRemovalScript,
  renderNatScript,
} from "./rules.js";

// Applies the masquerade NAT in the pod's namespace. What was applied is remembered as two digests:
// of the script, and of the kernel's listing of the KubeVirt chains without counters. A rerun whose
// script and listing both match changes nothing; anything else re-applies the (idempotent) script.

export interface NatDigest {
  script: string;
  listing: string;
}

export async function setupMasqueradeNat(
  exec: NetnsExec,
  input: MasqueradeNatInput,
  previous?: NatDigest,
): Promise<NatDigest> {
  const script = renderNatScript(renderMasqueradeRules(input));
  const scriptDigest = sha256(script);
  if (previous?.script === scriptDigest && previous.listing === (await listingDigest(exec))) return previous;
  await runScript(exec, script);
  return { script: scriptDigest, listing: await listingDigest(exec) };
}

/** Removes the KubeVirt chains, and the nat table when nothing else is left in it. */
export async function removeMasqueradeNat(exec: NetnsExec): Promise<void> {
  const objects = await listTable(exec, IPv4, NAT_TABLE);
  if (!objects) return;
  const present = new Set(chainNames(objects));
  if (NAT_CHAINS.some((chain) => present.has(chain.name))) {
    const ours = NAT_CHAINS.filter((chain) => present.has(chain.name)).map((chain) => chain.name);
    await runScript(exec, renderNatRemovalScript(ours));
  }
  const remaining = chainNames((await listTable(exec, IPv4, NAT_TABLE)) ?? []);
  if (remaining.length === 0) await runScript(exec, `delete table ip ${NAT_TABLE}\n`);
}

async function listingDigest(exec: NetnsExec): Promise<string> {
  const ours = new Set(NAT_CHAINS.map((chain) => chain.name));
  const objects = (await listTable(exec, IPv4, NAT_TABLE)) ?? [];
  const relevant = objects.filter((entry) => {
    const owner = (entry["chain"] ?? entry["rule"]) as { name?: unknown; chain?: unknown } | undefined;
    return owner !== undefined && (ours.has(String(owner.name)) || ours.has(String(owner.chain)));
  });
  return sha256(JSON.stringify(relevant, withoutVolatileFields));
}

/** Handles and counter values change without any change of the rules. */
function withoutVolatileFields(key: string, value: unknown): unknown {
  if (key === "handle") return undefined;
  if (key === "counter" && typeof value === "object" && value !== null) return {};
  return value;
}

function chainNames(objects: ReadonlyArray<Record<string, unknown>>): string[] {
  return objects.flatMap((entry) => {
    const chain = entry["chain"] as { name?: unknown } | undefined;
    return chain && typeof chain.name === "string" ? [chain.name] : [];
  });
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
