import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { newCA, newServerKeyPair, toPem } from "../triple.js";
import { readServingTLS, reloadOnChange } from "./serving-cert.js";

const dir = mkdtempSync(join(tmpdir(), "serving-cert-"));
const certFile = join(dir, "tls.crt");
const keyFile = join(dir, "tls.key");
const cleanups: (() => void)[] = [];

afterAll(() => rmSync(dir, { recursive: true, force: true }));

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function issue(commonName: string) {
  const pem = await toPem(
    await newServerKeyPair(await newCA("ca"), { commonName, ipAddresses: ["127.0.0.1"] }),
  );
  writeFileSync(certFile, pem.certPem);
  writeFileSync(keyFile, pem.keyPem);
}

function servedCommonName(server: Server): Promise<string> {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, rejectUnauthorized: false, agent: false }, (res) => {
      const subject = (res.socket as TLSSocket).getPeerCertificate().subject;
      res.resume();
      resolve(String(subject?.CN));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("reloadOnChange", () => {
  it("serves a rotated certificate without a restart", async () => {
    await issue("first");
    const tls = readServingTLS(certFile, keyFile);
    const server = createServer({ cert: tls.certPem, key: tls.keyPem }, (_req, res) => res.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => server.close());
    const errors: unknown[] = [];
    cleanups.push(
      reloadOnChange(server, { certFile, keyFile, clientCA: () => tls.certPem }, (e) => errors.push(e), 50),
    );
    expect(await servedCommonName(server)).toBe("first");

    await issue("second");
    const deadline = Date.now() + 5_000;
    let served = "";
    while (Date.now() < deadline && (served = await servedCommonName(server)) !== "second") {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(served).toBe("second");
    expect(errors).toEqual([]);
  });
});
