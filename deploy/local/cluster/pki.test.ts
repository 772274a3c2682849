import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KubeConfig } from "@kubernetes/client-node";
import { renderKubeconfig } from "./kubeconfig.js";
import { ensurePki } from "./pki.js";

const dir = mkdtempSync(join(tmpdir(), "pki-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cert = (path: string) => new X509Certificate(readFileSync(path));

describe("ensurePki", () => {
  it("creates the cluster's certificates, each signed by the right CA", async () => {
    const files = await ensurePki(dir);
    const ca = cert(files.ca.cert);
    const frontProxyCA = cert(files.frontProxyCA.cert);
    const apiserver = cert(files.apiserver.cert);
    expect(apiserver.checkIssued(ca)).toBe(true);
    expect(apiserver.checkIP("10.243.0.1")).toBe("10.243.0.1");
    expect(apiserver.checkIP("10.96.0.1")).toBe("10.96.0.1");
    expect(apiserver.checkHost("kubernetes.default.svc.cluster.local")).toBeDefined();
    expect(cert(files.client("admin").cert).subject).toBe("CN=kubernetes-admin\nO=system:masters");
    expect(cert(files.client("node02").cert).subject).toBe("CN=system:node:node02\nO=system:nodes");
    const frontProxyClient = cert(files.frontProxyClient.cert);
    expect(frontProxyClient.subject).toBe("CN=front-proxy-client");
    expect(frontProxyClient.checkIssued(frontProxyCA)).toBe(true);
    expect(frontProxyClient.checkIssued(ca)).toBe(false);
    expect(readFileSync(files.serviceAccount.publicKey, "utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });

  it("keeps existing files on a second run", async () => {
    const files = await ensurePki(dir);
    const before = readFileSync(files.apiserver.cert, "utf8");
    await ensurePki(dir);
    expect(readFileSync(files.apiserver.cert, "utf8")).toBe(before);
  });

  it("renews every certificate a CA signed when that CA had to be made again", async () => {
    const files = await ensurePki(dir);
    const oldAdmin = readFileSync(files.client("admin").cert, "utf8");
    rmSync(files.ca.cert);
    await ensurePki(dir);
    expect(readFileSync(files.client("admin").cert, "utf8")).not.toBe(oldAdmin);
    expect(cert(files.client("admin").cert).checkIssued(cert(files.ca.cert))).toBe(true);
  });
});

describe("renderKubeconfig", () => {
  it("is read by the Kubernetes client with server, CA and client credentials embedded", async () => {
    const files = await ensurePki(dir);
    const kc = new KubeConfig();
    kc.loadFromString(
      await renderKubeconfig({
        server: "https://10.243.0.1:6443",
        caFile: files.ca.cert,
        clientCertFile: files.client("admin").cert,
        clientKeyFile: files.client("admin").key,
        userName: "kubernetes-admin",
      }),
    );
    expect(kc.getCurrentCluster()?.server).toBe("https://10.243.0.1:6443");
    expect(Buffer.from(kc.getCurrentCluster()?.caData ?? "", "base64").toString()).toBe(
      readFileSync(files.ca.cert, "utf8"),
    );
    expect(kc.getCurrentUser()?.name).toBe("kubernetes-admin");
    expect(kc.getCurrentUser()?.certData).toBe(readFileSync(files.client("admin").cert).toString("base64"));
  });
});
