// The serving certificate from files (the operator mounts Secret kubevirt-virt-api-certs), reloaded
// into the running server when the files change, so a rotated certificate needs no restart.
import { readFileSync, unwatchFile, watchFile } from "node:fs";
import type { Server } from "node:https";

/** A serving certificate and its key, PEM-encoded. */
export interface ServingTLS {
  certPem: string;
  keyPem: string;
}

export const DEFAULT_TLS_CERT_FILE = "/etc/virt-api/certificates/tls.crt";
export const DEFAULT_TLS_KEY_FILE = "/etc/virt-api/certificates/tls.key";

export function readServingTLS(certFile: string, keyFile: string): ServingTLS {
  return { certPem: readFileSync(certFile, "utf8"), keyPem: readFileSync(keyFile, "utf8") };
}

/** Polls both files (Secret volumes swap a symlink, which inotify-based watching misses). */
export function reloadOnChange(
  server: Server,
  files: { certFile: string; keyFile: string; clientCA: () => string },
  onError: (error: unknown) => void,
  intervalMs = 2_000,
): () => void {
  const reload = () => {
    try {
      const tls = readServingTLS(files.certFile, files.keyFile);
      server.setSecureContext({ cert: tls.certPem, key: tls.keyPem, ca: files.clientCA() });
    } catch (error) {
      onError(error); // keep serving with the previous certificate
    }
  };
  watchFile(files.certFile, { interval: intervalMs }, reload);
  watchFile(files.keyFile, { interval: intervalMs }, reload);
  return () => {
    unwatchFile(files.certFile, reload);
    unwatchFile(files.keyFile, reload);
  };
}
