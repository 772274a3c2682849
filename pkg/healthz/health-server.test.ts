import { Gauge, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import type { Transport } from "../controller/rest.js";
import { MetricsEndpoint } from "../monitoring/metrics/common/endpoint.js";
import { HealthServer } from "./health-server.js";

const transport: Transport = {
  request: () => Promise.resolve({ gitVersion: "v1.34.4" }),
  stream: () => Promise.resolve(),
};

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function start(metrics?: MetricsEndpoint): Promise<number> {
  server = new HealthServer({
    bindAddress: "127.0.0.1",
    port: 0,
    certFile: "/nonexistent/tls.crt",
    keyFile: "/nonexistent/tls.key",
    transport,
    isLeader: () => false,
    configResourceVersion: () => "",
    ...(metrics ? { metrics } : {}),
  });
  return server.start();
}

describe("HealthServer", () => {
  it("serves the component's metrics on /metrics", async () => {
    const registry = new Registry();
    new Gauge({ name: "test_ready_status", help: "Ready.", registers: [registry] }).set(1);
    const port = await start(new MetricsEndpoint(registry));
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(registry.contentType);
    expect(await response.text()).toContain("\ntest_ready_status 1\n");
  });

  it("has no /metrics without a registry", async () => {
    const port = await start();
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});
