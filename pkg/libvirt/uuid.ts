// Domain UUIDs travel as 16 raw bytes (remote_uuid); people and XML use the 36-character form.
import { VIR_UUID_BUFLEN } from "./generated/libvirt-api.js";

export function uuidToString(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function uuidToBytes(uuid: string): Uint8Array {
  const hex = uuid.replace(/-/g, "");
  if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== VIR_UUID_BUFLEN * 2) {
    throw new TypeError(`not a UUID: ${JSON.stringify(uuid)}`);
  }
  return Buffer.from(hex, "hex");
}
