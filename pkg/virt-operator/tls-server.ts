// An HTTPS server whose certificate comes from a certificate Secret the operator manages, checked before
// every handshake so a renewed certificate is used without a restart; until the Secret exists an optional
// fallback certificate serves (upstream's FallbackCertificateManager).
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../controller/log.js";
import type { ObjectStore } from "./cluster.js";
import type { Secret } from "./resource/generate/components/k8s-types.js";
import { CERT_KEY, PRIVATE_KEY_KEY } from "./resource/generate/components/secrets.js";

export interface PemPair {
  cert: string;
  key: string;
}

/** The certificate a Secret holds, with a version that changes whenever the Secret does. */
export class SecretCertificateSource {
  constructor(
    private readonly secrets: ObjectStore<Secret>,
    private readonly key: string,
    private readonly fallback?: PemPair,
  ) {}

  current(): { version: string; pem: PemPair } | undefined {
    const secret = this.secrets.get(this.key);
    const cert = secret?.data?.[CERT_KEY];
    const key = secret?.data?.[PRIVATE_KEY_KEY];
    if (!secret || !cert || !key) return this.fallback && { version: "fallback", pem: this.fallback };
    const pem = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
    return {
      version: secret.metadata?.resourceVersion ?? `${cert}${key}`,
      pem: { cert: pem(cert), key: pem(key) },
    };
  }
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function reply(res: ServerResponse, code: number, body: unknown, contentType?: string): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(code, {
    "Content-Type": contentType ?? (typeof body === "string" ? "text/plain" : "application/json"),
  });
  res.end(text);
}

export class TlsServer {
  private server: https.Server | undefined;
  private servedVersion: string | undefined;

  constructor(
    private readonly name: string,
    private readonly certificates: SecretCertificateSource,
    private readonly handler: RequestHandler,
    private readonly logger: Logger,
  ) {}

  /**
   * Before each TLS handshake the server's certificate is brought up to date with the Secret. Clients need
   * not send SNI for it: kubelet probes connect by IP.
   */
  private refreshCertificate(server: https.Server): void {
    const current = this.certificates.current();
    if (!current || current.version === this.servedVersion) return;
    server.setSecureContext(current.pem);
    this.servedVersion = current.version;
  }

  start(host: string, port: number): Promise<void> {
    const server = https.createServer();
    // Ahead of the TLS listener, so the new context already applies to this connection.
    server.prependListener("connection", () => this.refreshCertificate(server));
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      this.handler(req, res).catch((err: unknown) => {
        this.logger.error({ err, server: this.name }, "request failed");
        if (!res.headersSent) reply(res, 500, "internal error");
      });
    });
    server.on("tlsClientError", (err) =>
      this.logger.debug({ err: err.message, server: this.name }, "TLS handshake failed"),
    );
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
  }

  port(): number | undefined {
    const address = this.server?.address();
    return typeof address === "object" && address ? address.port : undefined;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}
