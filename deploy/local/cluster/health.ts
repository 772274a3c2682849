// Readiness probes used while starting the cluster.
import { request } from "node:https";
import { z } from "zod";
import type { AdminClient } from "./apiserver-client.js";
import { topology } from "./topology.js";

export async function etcdHealthy(): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${topology.etcd.clientPort}/health`, {
      signal: AbortSignal.timeout(2_000),
    });
    const body = z.object({ health: z.string() }).safeParse(await res.json());
    return body.success && body.data.health === "true";
  } catch {
    return false;
  }
}

/** A plain-HTTP /healthz on loopback (kube-proxy's 10256). */
export async function httpHealthz(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * /healthz of a component serving on loopback (controller-manager 10257, scheduler 10259). Their
 * serving certificates are self-signed by the component itself, so only the answer is checked.
 */
export function loopbackHealthz(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/healthz", rejectUnauthorized: false, timeout: 2_000 },
      (res) => {
        res.resume();
        resolvePromise(res.statusCode === 200);
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolvePromise(false));
    req.end();
  });
}

const nodeList = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string() }),
      status: z
        .object({ conditions: z.array(z.object({ type: z.string(), status: z.string() })).optional() })
        .optional(),
    }),
  ),
});

/** Names of the Nodes whose Ready condition is True. */
export async function readyNodes(client: AdminClient): Promise<string[]> {
  try {
    const result = await client.get("/api/v1/nodes");
    if (result.status !== 200) return [];
    return nodeList
      .parse(JSON.parse(result.body))
      .items.filter((node) =>
        (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True"),
      )
      .map((node) => node.metadata.name);
  } catch {
    return [];
  }
}
