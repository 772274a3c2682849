// Where a launcher's migration traffic goes (upstream virt-handler/migration-proxy's names): the
// handler's proxies listen on unix sockets in the pod's share dir, one for the libvirt connection
// (keyed by the VMI's uid) and one per QEMU stream (keyed by uid and the port it stands for).
import { join } from "node:path";

/** The port the direct (memory) stream is proxied as. */
export const LIBVIRT_DIRECT_MIGRATION_PORT = 49152;
/** The port the block (disk copy) stream is proxied as. */
export const LIBVIRT_BLOCK_MIGRATION_PORT = 49153;

/** Upstream ConstructProxyKey: the uid, then "-<port>" unless the port is 0. */
export function constructProxyKey(id: string, port: number): string {
  return port === 0 ? id : `${id}-${port}`;
}

export function migrationSocketsDir(virtShareDir: string): string {
  return join(virtShareDir, "migrationproxy");
}

/** Upstream SourceUnixFile: the socket a source launcher connects to for `key`. */
export function sourceUnixFile(virtShareDir: string, key: string): string {
  return join(migrationSocketsDir(virtShareDir), `${key}-source.sock`);
}
