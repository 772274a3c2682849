import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "./api-error.js";
import { KubeConfigTransport } from "./rest.js";
import { localKubeConfig } from "./testing/kubeconfig.js";

interface Seen {
  method: string;
  url: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

// A loopback server standing in for kube-apiserver: echoes requests, streams watch lines, refuses paths.
let server: http.Server;
let transport: KubeConfigTransport;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        contentType: req.headers["content-type"],
        authorization: req.headers.authorization,
        body,
      });
      if (req.url?.startsWith("/missing")) {
        res.writeHead(404, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify({ kind: "Status", code: 404, reason: "NotFound", message: 'pods "x" not found' }),
        );
      } else if (req.url?.includes("watch=true")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"DELE');
        setTimeout(() => res.end('TED","object":{"metadata":{"name":"a"}}}\n'), 5);
      } else if (req.url?.startsWith("/hang")) {
        res.writeHead(200);
        res.write('{"type":"BOOKMARK","object":{}}\n'); // then never end
      } else {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ echoed: body === "" ? null : JSON.parse(body) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  transport = new KubeConfigTransport(localKubeConfig(`http://127.0.0.1:${port}`));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("KubeConfigTransport", () => {
  it("sends JSON with the kubeconfig's credentials, content type and query", async () => {
    const out = await transport.request({
      method: "PATCH",
      path: "/api/v1/namespaces/d/pods/p",
      query: { fieldManager: "t", dryRun: undefined },
      body: { metadata: { labels: { a: "b" } } },
      contentType: "application/merge-patch+json",
    });
    expect(out).toEqual({ echoed: { metadata: { labels: { a: "b" } } } });
    const last = seen.at(-1);
    expect(last).toMatchObject({
      method: "PATCH",
      url: "/api/v1/namespaces/d/pods/p?fieldManager=t",
      contentType: "application/merge-patch+json",
      authorization: "Bearer test-token",
    });
  });

  it("sends a DELETE's DeleteOptions body with its length", async () => {
    const options = { kind: "DeleteOptions", gracePeriodSeconds: 0, preconditions: { uid: "u1" } };
    const out = await transport.request({
      method: "DELETE",
      path: "/api/v1/namespaces/d/pods/p",
      body: options,
    });
    expect(out).toEqual({ echoed: options });
  });

  it("turns an error answer into an ApiError carrying the Status", async () => {
    const err = await transport.request({ method: "GET", path: "/missing" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 404, reason: "NotFound", message: 'pods "x" not found' });
  });

  it("streams watch lines, even when a line is split across chunks", async () => {
    const lines: unknown[] = [];
    await transport.stream({ path: "/api/v1/pods", query: { watch: true } }, (l) => lines.push(l));
    expect(lines).toEqual([
      { type: "ADDED", object: { metadata: { name: "a" } } },
      { type: "DELETED", object: { metadata: { name: "a" } } },
    ]);
  });

  it("ends a stream quietly when its signal aborts", async () => {
    const ctl = new AbortController();
    const lines: unknown[] = [];
    const done = transport.stream({ path: "/hang", signal: ctl.signal }, (l) => {
      lines.push(l);
      ctl.abort();
    });
    await expect(done).resolves.toBeUndefined();
    expect(lines).toHaveLength(1);
  });

  it("rejects a refused stream with ApiError", async () => {
    await expect(transport.stream({ path: "/missing" }, () => undefined)).rejects.toMatchObject({
      code: 404,
    });
  });
});
