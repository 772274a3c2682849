// Names shared by the handlers and the launchers about one migration's proxies (upstream
// pkg/virt-handler/migration-proxy): the ports QEMU's direct and block migration streams are known by,
// the key each proxy is filed under, and where a launcher finds the source side's unix sockets.
import path from "node:path";

/** QEMU's own migration stream, when libvirt hands it a connection of its own (direct migration). */
export const LibvirtDirectMigrationPort = 49152;
/** The NBD stream of a block migration (local disks copied along). */
export const LibvirtBlockMigrationPort = 49153;

const MIGRATION_PORTS: readonly number[] = [LibvirtDirectMigrationPort, LibvirtBlockMigrationPort];

/** The launcher's subdirectory (of its virt share dir) holding the source side's unix sockets. */
export const MIGRATION_PROXY_DIR = "migrationproxy";

/** The migration ports a migration needs: the direct one always, the block one only to copy disks. */
export function getMigrationPortsList(isBlockMigration: boolean): number[] {
  return isBlockMigration ? [...MIGRATION_PORTS] : [LibvirtDirectMigrationPort];
}

/** `<id>` for libvirt's own connection (port 0), `<id>-<port>` for a migration port's stream. */
export function constructProxyKey(id: string, port: number): string {
  return port === 0 ? id : `${id}-${port}`;
}

/** The unix socket a source launcher connects to for the proxy filed under `key`. */
export function sourceUnixFile(baseDir: string, key: string): string {
  return path.join(baseDir, MIGRATION_PROXY_DIR, `${key}-source.sock`);
}

/**
 * Which migration port a target-side unix socket serves: the port whose proxy key names the socket
 * file, or 0 for libvirt's socket. Only the file name is read, so no directory on the way can match.
 */
export function migrationPortOfSocket(id: string, socketPath: string): number {
  const file = path.basename(socketPath);
  return MIGRATION_PORTS.find((port) => file.startsWith(constructProxyKey(id, port))) ?? 0;
}

/** The ports a source socket may stand for: 0 (libvirt's connection) or one of the migration ports. */
export function isProxiedPort(port: number): boolean {
  return port === 0 || MIGRATION_PORTS.includes(port);
}

/** A TCP port as a handler publishes it in `targetDirectMigrationNodePorts`; undefined unless 1..65535. */
export function parseTcpPort(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** A proxy key becomes a file name: it must be one non-empty path segment. */
export function isValidProxyKey(key: string): boolean {
  return key !== "" && key !== "." && key !== ".." && !key.includes("/") && !key.includes("\0");
}
