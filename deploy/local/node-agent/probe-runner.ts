import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Container, IntOrString, Probe } from "./k8s-types.js";
import type { PodRuntime } from "./pod-runtime.js";
import { errorMessage } from "../../../pkg/util/error-message.js";

// Runs one probe attempt the way kubelet's prober does: exec in the container, an HTTP GET that counts
// 200-399 as success (no redirects followed across hosts, TLS not verified), or a TCP connect.
// The pod IPs are routable from the host, so HTTP and TCP probes are made from the agent itself.

export interface ProbeTarget {
  containerID: string;
  podIP: string;
  container: Container;
}

export interface ProbeOutcome {
  success: boolean;
  message: string;
}

export type ProbeRunner = (probe: Probe, target: ProbeTarget) => Promise<ProbeOutcome>;

export const PROBE_USER_AGENT = "kube-probe/1.34";

export function resolvePort(port: IntOrString, container: Container): number {
  if (typeof port === "number") return port;
  const named = container.ports?.find((p) => p.name === port);
  if (named) return named.containerPort;
  const numeric = Number(port);
  if (Number.isInteger(numeric) && numeric > 0) return numeric;
  throw new Error(`couldn't find port: ${port} in ${JSON.stringify(container.ports ?? [])}`);
}

function httpProbe(
  probe: NonNullable<Probe["httpGet"]>,
  target: ProbeTarget,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const scheme = (probe.scheme ?? "HTTP").toLowerCase();
  const host = probe.host || target.podIP;
  const port = resolvePort(probe.port, target.container);
  let path = probe.path ?? "/";
  if (!path.startsWith("/")) path = `/${path}`;
  const headers: Record<string, string> = { "User-Agent": PROBE_USER_AGENT, Accept: "*/*" };
  for (const h of probe.httpHeaders ?? []) headers[h.name] = h.value;
  const url = `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}${path}`;
  return new Promise((resolve) => {
    const send = scheme === "https" ? https.request : http.request;
    const req = send(
      url,
      { method: "GET", headers, timeout: timeoutMs, rejectUnauthorized: false },
      (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        resolve(
          code >= 200 && code < 400
            ? { success: true, message: "" }
            : { success: false, message: `HTTP probe failed with statuscode: ${code}` },
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`Get "${url}": context deadline exceeded`)));
    req.on("error", (err) => resolve({ success: false, message: err.message }));
    req.end();
  });
}

function tcpProbe(
  probe: NonNullable<Probe["tcpSocket"]>,
  target: ProbeTarget,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const host = probe.host || target.podIP;
  const port = resolvePort(probe.port, target.container);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: timeoutMs });
    socket.once("connect", () => {
      socket.destroy();
      resolve({ success: true, message: "" });
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve({ success: false, message: `dial tcp ${host}:${port}: i/o timeout` });
    });
    socket.once("error", (err) =>
      resolve({ success: false, message: `dial tcp ${host}:${port}: ${err.message}` }),
    );
  });
}

export function makeProbeRunner(runtime: PodRuntime): ProbeRunner {
  return async (probe, target) => {
    const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
    try {
      if (probe.exec) {
        const result = await runtime.exec(target.containerID, probe.exec.command ?? [], timeoutMs);
        return { success: result.exitCode === 0, message: result.output.trim() };
      }
      if (probe.httpGet) return await httpProbe(probe.httpGet, target, timeoutMs);
      if (probe.tcpSocket) return await tcpProbe(probe.tcpSocket, target, timeoutMs);
      if (probe.grpc) return { success: false, message: "grpc probes are not supported by the node agent" };
      return { success: false, message: "probe names no handler" };
    } catch (err) {
      return { success: false, message: errorMessage(err) };
    }
  };
}
