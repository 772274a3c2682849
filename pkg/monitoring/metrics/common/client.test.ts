import http from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeConfigTransport } from "../../../controller/rest.js";
import { localKubeConfig } from "../../../controller/testing/kubeconfig.js";
import { describedAs, samplesOf } from "../testing/exposition.js";
import { latencyLabels, RestClientMetrics, requestLabels, templatePath } from "./client.js";

const server = "https://10.96.0.1:443";

describe("requestLabels", () => {
  it.each([
    ["GET", "/api/v1/namespaces/ns/pods", {}, { resource: "pods", verb: "LIST" }],
    ["GET", "/api/v1/namespaces/ns/pods/p1", {}, { resource: "pods", verb: "GET" }],
    ["GET", "/api/v1/namespaces/ns/pods", { watch: true }, { resource: "pods", verb: "WATCH" }],
    ["GET", "/api/v1/watch/nodes", {}, { resource: "nodes", verb: "WATCH" }],
    ["GET", "/api/v1/nodes", {}, { resource: "nodes", verb: "LIST" }],
    [
      "PUT",
      "/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vmi",
      {},
      { resource: "virtualmachineinstances", verb: "UPDATE" },
    ],
    ["PATCH", "/api/v1/nodes/n1", {}, { resource: "nodes", verb: "PATCH" }],
    ["POST", "/apis/coordination.k8s.io/v1/namespaces/kv/leases", {}, { resource: "leases", verb: "CREATE" }],
    ["DELETE", "/api/v1/namespaces/ns/pods/p1", {}, { resource: "pods", verb: "DELETE" }],
    ["GET", "/version", {}, { resource: "none", verb: "none" }],
  ])("%s %s %o", (method, path, query, expected) => {
    expect(requestLabels({ method, server, path, query }, "200")).toEqual({
      code: "200",
      method,
      host: "10.96.0.1:443",
      ...expected,
    });
  });
});

describe("latencyLabels", () => {
  it.each([
    ["/api/v1/namespaces/ns/pods", "/api/v1/namespaces/{namespace}/pods"],
    ["/api/v1/namespaces/ns/pods/p1", "/api/v1/namespaces/{namespace}/pods/{name}"],
    ["/api/v1/namespaces/ns/pods/p1/status", "/api/v1/namespaces/{namespace}/pods/{name}/status"],
    ["/api/v1/nodes/n1", "/api/v1/nodes/{name}"],
    ["/api/v1/nodes/n1/status", "/api/v1/nodes/{name}/status"],
    ["/api/v1/namespaces/ns/finalize", "/api/v1/namespaces/{name}/finalize"],
    [
      "/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vmi",
      "/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachineinstances/{name}",
    ],
    ["/version", "/version"],
    ["/openapi/v2", "/{prefix}"],
  ])("templates %s as %s", (path, expected) => {
    expect(templatePath(path)).toBe(expected);
  });

  it("escapes the template and keeps only the query's keys, as client-go's URL", () => {
    const labels = latencyLabels({
      method: "GET",
      server,
      path: "/api/v1/namespaces/ns/pods",
      query: { labelSelector: "kubevirt.io", limit: 500, unset: undefined },
    });
    expect(labels).toEqual({
      // Read from the template: /api/v1/namespaces matches first, and the path does not end with it.
      verb: "GET",
      url: "https://10.96.0.1:443/api/v1/namespaces/%7Bnamespace%7D/pods?labelSelector=%7Bvalue%7D&limit=%7Bvalue%7D",
    });
  });

  it("reads cluster-scoped lists as LIST and drops the query of an unknown prefix", () => {
    expect(latencyLabels({ method: "GET", server, path: "/api/v1/nodes" }).verb).toBe("LIST");
    expect(latencyLabels({ method: "GET", server, path: "/openapi/v2", query: { a: 1 } }).url).toBe(
      "https://10.96.0.1:443/%7Bprefix%7D",
    );
  });
});

describe("RestClientMetrics through the transport", () => {
  let apiserver: http.Server;
  let base: string;

  beforeAll(async () => {
    apiserver = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.url?.startsWith("/api/v1/namespaces/ns/pods/missing")) {
          res.writeHead(404, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ kind: "Status", code: 404, reason: "NotFound" }));
        } else if (req.url?.includes("watch=true")) {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end('{"type":"ADDED","object":{}}\n');
        } else {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end("{}");
        }
      });
    });
    await new Promise<void>((resolve) => apiserver.listen(0, "127.0.0.1", resolve));
    base = `127.0.0.1:${(apiserver.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    apiserver.closeAllConnections();
    await new Promise((resolve) => apiserver.close(resolve));
  });

  it("counts every answer and times every plain request", async () => {
    const registry = new Registry();
    const transport = new KubeConfigTransport(
      localKubeConfig(`http://${base}`),
      new RestClientMetrics(registry),
    );
    await transport.request({ method: "GET", path: "/api/v1/namespaces/ns/pods/p1" });
    await transport.request({ method: "GET", path: "/api/v1/namespaces/ns/pods/p1" });
    await expect(
      transport.request({ method: "GET", path: "/api/v1/namespaces/ns/pods/missing" }),
    ).rejects.toThrow();
    await transport.stream({ path: "/api/v1/namespaces/ns/pods", query: { watch: true } }, () => undefined);
    const text = await registry.metrics();

    expect(describedAs(text, "kubevirt_rest_client_requests_total")).toEqual([
      "Number of HTTP requests, partitioned by status code, method, and host.",
      "counter",
    ]);
    const requests = (labels: Record<string, string>) =>
      samplesOf(text, "kubevirt_rest_client_requests_total", labels).map((sample) => sample.value);
    expect(requests({ code: "200", method: "GET", host: base, resource: "pods", verb: "GET" })).toEqual([2]);
    expect(requests({ code: "404", method: "GET", host: base, resource: "pods", verb: "GET" })).toEqual([1]);
    expect(requests({ code: "200", method: "GET", host: base, resource: "pods", verb: "WATCH" })).toEqual([
      1,
    ]);

    expect(describedAs(text, "kubevirt_rest_client_request_latency_seconds")).toEqual([
      "Request latency in seconds. Broken down by verb and URL.",
      "histogram",
    ]);
    const url = `http://${base}/api/v1/namespaces/%7Bnamespace%7D/pods/%7Bname%7D`;
    const counts = samplesOf(text, "kubevirt_rest_client_request_latency_seconds_count", {
      verb: "GET",
      url,
    });
    expect(counts.map((sample) => sample.value)).toEqual([3]);
    // The watch is never timed, as client-go never times one.
    expect(samplesOf(text, "kubevirt_rest_client_request_latency_seconds_count")).toHaveLength(1);
    const buckets = samplesOf(text, "kubevirt_rest_client_request_latency_seconds_bucket", { url });
    expect(buckets.map((sample) => sample.labels["le"])).toEqual([
      ...["0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3"],
      ...["4", "5", "6", "8", "10", "15", "20", "30", "45", "60", "+Inf"],
    ]);
  });

  it("counts a refused connection as <error>", async () => {
    const registry = new Registry();
    const transport = new KubeConfigTransport(
      localKubeConfig("http://127.0.0.1:1"),
      new RestClientMetrics(registry),
    );
    await expect(
      transport.request({ method: "DELETE", path: "/api/v1/namespaces/ns/pods/p1" }),
    ).rejects.toThrow();
    const text = await registry.metrics();
    expect(
      samplesOf(text, "kubevirt_rest_client_requests_total", {
        code: "<error>",
        method: "DELETE",
        host: "127.0.0.1:1",
        resource: "pods",
        verb: "DELETE",
      }).map((sample) => sample.value),
    ).toEqual([1]);
  });
});
