// A minimal HTTPS client for the admin identity: enough to probe health endpoints, read Nodes and
// label the control-plane node while the cluster starts, without a full Kubernetes client.
import { readFile } from "node:fs/promises";
import { request } from "node:https";
import type { Layout } from "./layout.js";
import { pkiFiles } from "./pki.js";
import { apiserverURL } from "./topology.js";

export interface HttpResult {
  status: number;
  body: string;
}

export interface AdminClient {
  get(path: string, timeoutMs?: number): Promise<HttpResult>;
  /** A strategic-merge (or other, by `contentType`) PATCH with a JSON body. */
  patch(path: string, body: object, contentType?: string): Promise<HttpResult>;
}

export async function adminClient(l: Layout): Promise<AdminClient> {
  const pki = pkiFiles(l.pkiDir);
  const admin = pki.client("admin");
  const [ca, cert, key] = await Promise.all([
    readFile(pki.ca.cert),
    readFile(admin.cert),
    readFile(admin.key),
  ]);
  const send = (method: string, path: string, timeoutMs: number, body?: { type: string; data: string }) =>
    new Promise<HttpResult>((resolvePromise, reject) => {
      const headers = body
        ? { "content-type": body.type, "content-length": Buffer.byteLength(body.data) }
        : {};
      const options = { method, headers, ca, cert, key, timeout: timeoutMs };
      const req = request(new URL(path, apiserverURL), options, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolvePromise({ status: res.statusCode ?? 0, body: text }));
        res.on("error", reject);
      });
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
      req.on("error", reject);
      req.end(body?.data);
    });
  return {
    get: (path, timeoutMs = 5_000) => send("GET", path, timeoutMs),
    patch: (path, body, contentType = "application/strategic-merge-patch+json") =>
      send("PATCH", path, 5_000, { type: contentType, data: JSON.stringify(body) }),
  };
}

/** True when GET `path` answers 200 "ok"; any failure to connect counts as not ready. */
export async function answersOk(client: AdminClient, path: string): Promise<boolean> {
  try {
    const result = await client.get(path);
    return result.status === 200 && result.body.trim() === "ok";
  } catch {
    return false;
  }
}
