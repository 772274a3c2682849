import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ContainerProbes, ProbeTracker, type ProbeKind } from "./prober.js";
import { makeProbeRunner, resolvePort, type ProbeTarget } from "./probe-runner.js";
import type { PodRuntime } from "./pod-runtime.js";

const target: ProbeTarget = {
  containerID: "c1",
  podIP: "127.0.0.1",
  container: { name: "c", ports: [{ name: "http", containerPort: 8080 }] },
};

function recorder() {
  const log: string[] = [];
  return {
    log,
    listener: {
      changed: () => log.push("changed"),
      failed: (kind: ProbeKind) => log.push(`failed:${kind}`),
      unhealthy: (kind: ProbeKind) => log.push(`unhealthy:${kind}`),
    },
  };
}

describe("ProbeTracker", () => {
  it("flips only after the thresholds of consecutive results", () => {
    const t = new ProbeTracker(false, 2, 3);
    expect([
      t.record(true),
      t.record(true),
      t.record(false),
      t.record(false),
      t.record(true),
      t.record(false),
    ]).toEqual([false, true, true, true, true, true]);
    t.record(false);
    expect(t.record(false)).toBe(false);
  });
});

describe("ContainerProbes", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("is not ready until the readiness probe succeeds, and then reports the change", async () => {
    const results = [false, true];
    const { log, listener } = recorder();
    const probes = new ContainerProbes(
      { readiness: { exec: { command: ["true"] }, periodSeconds: 1, initialDelaySeconds: 2 } },
      target,
      async () => ({ success: results.shift() ?? true, message: "nope" }),
      listener,
    );
    expect(probes.ready).toBe(false);
    await vi.advanceTimersByTimeAsync(2000);
    expect(probes.ready).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(probes.ready).toBe(true);
    expect(log).toEqual(["failed:Readiness", "changed"]);
    probes.stop();
  });

  it("holds readiness and liveness until the startup probe succeeds", async () => {
    const ran: string[] = [];
    let startupOk = false;
    const { listener } = recorder();
    const probes = new ContainerProbes(
      {
        startup: { exec: { command: ["startup"] }, periodSeconds: 1, failureThreshold: 10 },
        readiness: { exec: { command: ["ready"] }, periodSeconds: 1 },
      },
      target,
      async (p) => {
        const name = p.exec?.command?.[0] ?? "";
        ran.push(name);
        return { success: name === "startup" ? startupOk : true, message: "" };
      },
      listener,
    );
    await vi.advanceTimersByTimeAsync(2500);
    expect(ran.filter((n) => n === "ready")).toHaveLength(0);
    expect(probes.started).toBe(false);
    startupOk = true;
    await vi.advanceTimersByTimeAsync(2000);
    expect(probes.started).toBe(true);
    expect(probes.ready).toBe(true);
    probes.stop();
  });

  it("asks for a kill after failureThreshold liveness failures", async () => {
    const { log, listener } = recorder();
    const probes = new ContainerProbes(
      { liveness: { tcpSocket: { port: 1 }, periodSeconds: 1, failureThreshold: 2 } },
      target,
      async () => ({ success: false, message: "refused" }),
      listener,
    );
    await vi.advanceTimersByTimeAsync(1500);
    expect(log).toEqual(["failed:Liveness", "failed:Liveness", "unhealthy:Liveness"]);
    probes.stop();
  });
});

describe("probe runner", () => {
  it("resolves named and numeric ports", () => {
    expect(resolvePort("http", target.container)).toBe(8080);
    expect(resolvePort(9090, target.container)).toBe(9090);
    expect(() => resolvePort("metrics", target.container)).toThrow("couldn't find port: metrics");
  });

  it("counts 2xx/3xx as success and reports other status codes, over real HTTP and TCP", async () => {
    const server = http.createServer((req, res) => {
      res.statusCode = req.url === "/healthz" ? 200 : req.url === "/moved" ? 302 : 503;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const run = makeProbeRunner({} as PodRuntime);
    try {
      expect(await run({ httpGet: { path: "/healthz", port } }, target)).toEqual({
        success: true,
        message: "",
      });
      expect((await run({ httpGet: { path: "/moved", port } }, target)).success).toBe(true);
      expect(await run({ httpGet: { path: "/bad", port } }, target)).toEqual({
        success: false,
        message: "HTTP probe failed with statuscode: 503",
      });
      expect((await run({ tcpSocket: { port } }, target)).success).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
    const refused = await run({ tcpSocket: { port } }, target);
    expect(refused.success).toBe(false);
    expect(refused.message).toContain(`dial tcp 127.0.0.1:${port}`);
  });

  it("runs exec probes through the runtime and judges by exit code", async () => {
    const runtime = {
      exec: async (_id: string, cmd: string[]) => ({ exitCode: cmd[0] === "ok" ? 0 : 1, output: "out\n" }),
    };
    const run = makeProbeRunner(runtime as unknown as PodRuntime);
    expect(await run({ exec: { command: ["ok"] } }, target)).toEqual({ success: true, message: "out" });
    expect((await run({ exec: { command: ["bad"] } }, target)).success).toBe(false);
  });
});
