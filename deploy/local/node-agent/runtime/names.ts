import { createHash } from "node:crypto";

// Names of the kernel objects the runtime creates. Interface names are limited to 15 bytes (IFNAMSIZ - 1),
// so long inputs are shortened with a hash rather than cut, keeping two nodes' names apart.

export const MAX_INTERFACE_NAME = 15;
/** Default prefix of everything the local cluster creates on the host (bridges, netns, nft table). */
export const DEFAULT_PREFIX = "kvts-";

const POD_UID_CHARS = 12;

function shortHash(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** The pod UID without dashes, cut to a prefix that is unique enough on one machine. */
export function podUidPrefix(podUID: string): string {
  const compact = podUID.toLowerCase().replace(/[^0-9a-z]/g, "");
  if (compact.length === 0) throw new Error(`pod UID "${podUID}" has no usable characters`);
  return compact.length >= POD_UID_CHARS ? compact.slice(0, POD_UID_CHARS) : compact;
}

/** The bridge of a node, e.g. `kvts-node01`. */
export function bridgeName(prefix: string, nodeName: string): string {
  const plain = `${prefix}${nodeName}`;
  if (plain.length <= MAX_INTERFACE_NAME && /^[A-Za-z0-9_.-]+$/.test(nodeName)) return plain;
  const room = MAX_INTERFACE_NAME - prefix.length;
  if (room < 4) throw new Error(`interface prefix "${prefix}" leaves no room for a node name`);
  return `${prefix}${shortHash(nodeName, room)}`;
}

/** The network namespace of a pod, e.g. `kvts-0f3c9d2e7a1b` (a file under /run/netns). */
export function netnsName(prefix: string, podUID: string): string {
  return `${prefix}${podUidPrefix(podUID)}`;
}
