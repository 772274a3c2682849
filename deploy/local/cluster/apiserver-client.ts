// A minimal HTTPS client for the admin identity: enough to probe health endpoints and read
// Nodes while the cluster starts, without a full Kubernetes client.
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
}

export async function adminClient(l: Layout): Promise<AdminClient> {
  const pki = pkiFiles(l.pkiDir);
  const admin = pki.client("admin");
  const [ca, cert, key] = await Promise.all([
    readFile(pki.ca.cert),
    readFile(admin.cert),
    readFile(admin.key),
  ]);
  return {
    get: (path, timeoutMs = 5_000) =>
      new Promise((resolvePromise, reject) => {
        const req = request(new URL(path, apiserverURL), { ca, cert, key, timeout: timeoutMs }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolvePromise({ status: res.statusCode ?? 0, body }));
          res.on("error", reject);
        });
        req.on("timeout", () => req.destroy(new Error(`GET ${path}: no answer within ${timeoutMs} ms`)));
        req.on("error", reject);
        req.end();
      }),
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
