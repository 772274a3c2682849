// Firmware UUIDs. New objects get random ones; VMs created before UUIDs were stored get one derived
// from their name (a SHA-1 name-based UUID in a KubeVirt-specific namespace), which upstream's VM
// controller and snapshot restore still compute (pkg/virt-controller/watch/vm/firmware.go).
import { createHash, randomUUID } from "node:crypto";

const LEGACY_UUID_NAMESPACE = "6a1a24a1-4061-4607-8bf4-a3963d0c5895";

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replaceAll("-", ""), "hex");
}

function formatUUID(bytes: Buffer): string {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** RFC 4122 version 5: SHA-1 over namespace and name, with version and variant bits set. */
export function nameBasedUUID(namespace: string, name: string): string {
  const digest = createHash("sha1").update(uuidBytes(namespace)).update(name, "utf8").digest();
  const bytes = digest.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  return formatUUID(bytes);
}

/** The stable firmware UUID upstream derives from a VM's (or VMI's) name. */
export function calculateLegacyUUID(name: string): string {
  return nameBasedUUID(LEGACY_UUID_NAMESPACE, name);
}

export function newRandomUUID(): string {
  return randomUUID();
}
