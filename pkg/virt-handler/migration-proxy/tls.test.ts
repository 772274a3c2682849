import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  fileMigrationTLS,
  sourceClientOptions,
  targetServerOptions,
  DEFAULT_MIGRATION_CN_TYPES,
} from "./tls.js";
import { migrationTLSOf, newHandlerCertificates, type HandlerCertificates } from "./testing.js";

let certs: HandlerCertificates;
beforeAll(async () => {
  certs = await newHandlerCertificates();
});

describe("migration TLS", () => {
  let dir: string;
  const file = (name: string, text: string) => {
    const target = path.join(dir, name);
    writeFileSync(target, text);
    return target;
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "migration-tls-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the handler's mounted certificates at each use, leaving out client pairs that are not mounted", () => {
    const tls = fileMigrationTLS({
      caBundle: () => certs.caBundle,
      serverCertFile: file("server.crt", certs.server.certPem),
      serverKeyFile: file("server.key", certs.server.keyPem),
      clientCertFiles: [
        {
          certFile: file("migration.crt", certs.migrationClient.certPem),
          keyFile: file("migration.key", certs.migrationClient.keyPem),
        },
        { certFile: path.join(dir, "absent.crt"), keyFile: path.join(dir, "absent.key") },
      ],
    });
    expect(tls.serverCertificate()).toEqual(certs.server);
    expect(tls.clientCertificates()).toEqual([certs.migrationClient]);
    expect(tls.clientCommonNameTypes).toEqual(DEFAULT_MIGRATION_CN_TYPES);
    // a rotated Secret is picked up by the next listener or dial
    file("server.crt", certs.misnamedServer.certPem);
    file("server.key", certs.misnamedServer.keyPem);
    expect(tls.serverCertificate()).toEqual(certs.misnamedServer);
  });

  it("asks for and checks a client certificate against the KubeVirt CA on the target", () => {
    expect(targetServerOptions(migrationTLSOf(certs))).toMatchObject({
      ca: certs.caBundle,
      cert: certs.server.certPem,
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.2",
    });
  });

  it("dials with each client pair in order and checks the target's name, not its host", () => {
    const options = sourceClientOptions(migrationTLSOf(certs));
    expect(options.map((option) => option.cert)).toEqual([
      certs.migrationClient.certPem,
      certs.handlerClient.certPem,
    ]);
    const check = options[0]!.checkServerIdentity!;
    expect(
      check("10.244.2.1", { subject: { CN: "kubevirt.io:system:node:virt-handler" } } as never),
    ).toBeUndefined();
    expect(
      check("10.244.2.1", { subject: { CN: "kubevirt.io:system:node:virt-api" } } as never)?.message,
    ).toBe("common name is invalid, got kubevirt.io:system:node:virt-api");
    const external = sourceClientOptions(migrationTLSOf(certs, { externallyManaged: true }));
    expect(external[0]!.checkServerIdentity!("h", { subject: { CN: "anything" } } as never)).toBeUndefined();
  });

  it("refuses to start before the CA or the certificates are there", () => {
    expect(() => sourceClientOptions(migrationTLSOf(certs, { caBundle: () => undefined }))).toThrow(
      "No ca certificate",
    );
    expect(() => sourceClientOptions(migrationTLSOf(certs, { clientCertificates: () => [] }))).toThrow(
      "No client certificate, client is not yet ready to talk to the server",
    );
    expect(() => targetServerOptions(migrationTLSOf(certs, { serverCertificate: () => undefined }))).toThrow(
      "No server certificate",
    );
  });
});
