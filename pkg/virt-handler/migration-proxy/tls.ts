// Mutual TLS between the two handlers of a migration (upstream pkg/util/tls SetupTLSForVirtHandlerServer
// and SetupTLSForVirtHandlerClients, as cmd/virt-handler builds them for the migration proxy). The target
// serves with the handler's serving certificate and accepts a source whose client certificate chains to
// the KubeVirt CA bundle and is named after one of --migration-cn-types; the source checks the same
// bundle and that the target is named kubevirt.io:system:node:virt-handler. Host names are not checked:
// the certificates carry none for the node addresses.
import { existsSync } from "node:fs";
import type { ConnectionOptions, PeerCertificate, TlsOptions, TLSSocket } from "node:tls";
import { readServingTLS } from "../../certificates/bootstrap/serving-cert.js";
import type { PemKeyPair } from "../../certificates/triple.js";
import { commonNameOf, verifyCommonName, VIRT_HANDLER_TYPE } from "../../util/tls/tls.js";

/** Upstream's defaults for the files cmd/virt-handler reads (servercertificates also serve consoles). */
export const DEFAULT_SERVER_CERT_FILE = "/etc/virt-handler/servercertificates/tls.crt";
export const DEFAULT_SERVER_KEY_FILE = "/etc/virt-handler/servercertificates/tls.key";
export const DEFAULT_MIGRATION_CLIENT_CERT_FILE = "/etc/virt-handler/migrationservercertificates/tls.crt";
export const DEFAULT_MIGRATION_CLIENT_KEY_FILE = "/etc/virt-handler/migrationservercertificates/tls.key";
export const DEFAULT_CLIENT_CERT_FILE = "/etc/virt-handler/clientcertificates/tls.crt";
export const DEFAULT_CLIENT_KEY_FILE = "/etc/virt-handler/clientcertificates/tls.key";
/** --migration-cn-types when not given. */
export const DEFAULT_MIGRATION_CN_TYPES: readonly string[] = [VIRT_HANDLER_TYPE, "migration"];

const MIN_TLS_VERSION = "TLSv1.2";

/** What the proxies need to know about certificates; read at each listener start and each dial, so rotations apply. */
export interface MigrationTLS {
  /** The KubeVirt CA bundle (the `kubevirt-ca` ConfigMap); undefined until it is known. */
  caBundle(): string | undefined;
  /** The target side's serving pair. */
  serverCertificate(): PemKeyPair | undefined;
  /** The source side's client pairs in the order tried: the migration certificate, then the older client one. */
  clientCertificates(): PemKeyPair[];
  /** The `kubevirt.io:system:client:<type>` names a target accepts (--migration-cn-types). */
  clientCommonNameTypes: readonly string[];
  /** Certificates issued outside KubeVirt (--externally-managed): the chain is checked, the names are not. */
  externallyManaged?: boolean;
}

/** The target listener's TLS options; throws while the CA or the certificate is missing, as upstream refuses then. */
export function targetServerOptions(tls: MigrationTLS): TlsOptions {
  const ca = tls.caBundle();
  if (ca === undefined) throw new Error("No ca certificate, server is not yet ready to receive traffic");
  const pair = tls.serverCertificate();
  if (!pair) throw new Error("No server certificate, server is not yet ready to receive traffic");
  return {
    ca,
    cert: pair.certPem,
    key: pair.keyPem,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: MIN_TLS_VERSION,
  };
}

/** Why a source that completed the handshake is refused (its name), or undefined to let it through. */
export function refusedSource(socket: TLSSocket, tls: MigrationTLS): string | undefined {
  if (tls.externallyManaged) return undefined;
  return verifyCommonName(commonNameOf(socket.getPeerCertificate()), "client", tls.clientCommonNameTypes);
}

/** One set of dial options per client pair, in the order to try them. */
export function sourceClientOptions(tls: MigrationTLS): ConnectionOptions[] {
  const ca = tls.caBundle();
  if (ca === undefined) throw new Error("No ca certificate, client is not yet ready to talk to the server");
  const pairs = tls.clientCertificates();
  if (pairs.length === 0)
    throw new Error("No client certificate, client is not yet ready to talk to the server");
  const checkServerIdentity = (_host: string, cert: PeerCertificate): Error | undefined => {
    if (tls.externallyManaged) return undefined;
    const refused = verifyCommonName(commonNameOf(cert), "node", [VIRT_HANDLER_TYPE]);
    return refused === undefined ? undefined : new Error(refused);
  };
  return pairs.map((pair) => ({
    ca,
    cert: pair.certPem,
    key: pair.keyPem,
    rejectUnauthorized: true,
    minVersion: MIN_TLS_VERSION,
    checkServerIdentity,
  }));
}

export interface MigrationTLSFiles {
  caBundle: () => string | undefined;
  serverCertFile?: string;
  serverKeyFile?: string;
  /** Tried in order; pairs whose files are absent are left out (the older client Secret may not be mounted). */
  clientCertFiles?: ReadonlyArray<{ certFile: string; keyFile: string }>;
  clientCommonNameTypes?: readonly string[];
  externallyManaged?: boolean;
}

/** The handler's certificates from its mounted Secrets, re-read on every use so rotated files apply. */
export function fileMigrationTLS(files: MigrationTLSFiles): MigrationTLS {
  const serverCertFile = files.serverCertFile ?? DEFAULT_SERVER_CERT_FILE;
  const serverKeyFile = files.serverKeyFile ?? DEFAULT_SERVER_KEY_FILE;
  const clientFiles = files.clientCertFiles ?? [
    { certFile: DEFAULT_MIGRATION_CLIENT_CERT_FILE, keyFile: DEFAULT_MIGRATION_CLIENT_KEY_FILE },
    { certFile: DEFAULT_CLIENT_CERT_FILE, keyFile: DEFAULT_CLIENT_KEY_FILE },
  ];
  return {
    caBundle: files.caBundle,
    serverCertificate: () => readServingTLS(serverCertFile, serverKeyFile),
    clientCertificates: () =>
      clientFiles
        .filter(({ certFile, keyFile }) => existsSync(certFile) && existsSync(keyFile))
        .map(({ certFile, keyFile }) => readServingTLS(certFile, keyFile)),
    clientCommonNameTypes: files.clientCommonNameTypes ?? DEFAULT_MIGRATION_CN_TYPES,
    externallyManaged: files.externallyManaged,
  };
}
