import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCA, newClientKeyPair, toPem } from "../../../pkg/certificates/triple.js";
import { KubeletServer, LogLookupError, type LogLocator } from "./kubelet-server.js";
import { ensureServingCert } from "./serving-cert.js";
import { parseCriLine, parseLogOptions } from "./cri-log.js";
import { silentLogger } from "./logger.js";
import tls from "node:tls";
import { PodStreamingHost } from "./streaming/pod-streaming-host.js";
import { openAndWait, readAll, requestUpgrade } from "./streaming/spdy-test-client.js";
import { StreamingServer } from "./streaming/streaming-server.js";

// The kubelet endpoint over real mutual TLS with certificates from a throw-away CA, reading a real
// CRI-format log file.

const LOG =
  [
    "2025-01-01T00:00:01.000000001Z stdout F first line",
    "2025-01-01T00:00:02.5Z stderr F second line",
    "2025-01-01T00:00:03Z stdout P part-",
    "2025-01-01T00:00:03.1Z stdout F one",
    "2025-01-01T00:00:04Z stdout F fourth line",
  ].join("\n") + "\n";

let dir: string;
let port: number;
let server: KubeletServer;
let client: { cert: string; key: string; ca: string };
let running = false;

async function get(
  pathAndQuery: string,
  identity: { cert?: string; key?: string } = client,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port,
        path: pathAndQuery,
        ca: client.ca,
        cert: identity.cert,
        key: identity.key,
        servername: "node01",
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kvts-kubelet-"));
  const ca = await newCA("test-ca");
  const caPem = await toPem(ca);
  await writeFile(path.join(dir, "ca.crt"), caPem.certPem);
  await writeFile(path.join(dir, "ca.key"), caPem.keyPem);
  const request = {
    stateDir: dir,
    caCertPath: path.join(dir, "ca.crt"),
    caKeyPath: path.join(dir, "ca.key"),
    nodeName: "node01",
    nodeIP: "127.0.0.1",
  };
  const serving = await ensureServingCert(request);
  // A second call reuses the files instead of issuing a new certificate.
  expect((await ensureServingCert(request)).cert).toBe(serving.cert);
  const apiserverClient = await toPem(
    await newClientKeyPair(ca, { commonName: "kube-apiserver-kubelet-client" }),
  );
  client = { cert: apiserverClient.certPem, key: apiserverClient.keyPem, ca: caPem.certPem };
  await writeFile(path.join(dir, "0.log"), LOG);
  await writeFile(path.join(dir, "1.log"), "2025-01-01T00:01:00Z stdout F restarted\n");
  const logs: LogLocator = {
    locate(namespace, pod, container, previous) {
      if (namespace !== "default" || pod !== "web")
        throw new LogLookupError(404, `pod "${pod}" does not exist`);
      if (container !== "app")
        throw new LogLookupError(
          400,
          `container "${container}" in pod "${pod}" is waiting to start: ContainerCreating`,
        );
      return { path: path.join(dir, previous ? "0.log" : "1.log"), isRunning: () => running };
    },
  };
  server = new KubeletServer({
    host: "127.0.0.1",
    port: 0,
    cert: serving.cert,
    key: serving.key,
    clientCA: serving.ca,
    logs,
    streaming: new StreamingServer(
      new PodStreamingHost(
        {
          locate: (...args) => logs.locate(...args),
          runningContainer(namespace, pod) {
            if (namespace !== "default" || pod !== "web") throw new LogLookupError(404, "pod does not exist");
            return { id: "c1", podUID: "uid-web" };
          },
        },
        {
          async execStream(id, command, io) {
            io.stdout?.write(`${id} ran ${command.join(" ")}\n`);
            return 0;
          },
          async portForward() {},
        },
      ),
      silentLogger(),
    ),
    log: silentLogger(),
  });
  port = await server.start();
});

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("kubelet endpoints", () => {
  it("answers /healthz to a client with a CA-signed certificate", async () => {
    expect(await get("/healthz")).toEqual({ status: 200, body: "ok" });
  });

  it("refuses clients without a certificate or with one from another CA", async () => {
    await expect(get("/healthz", {})).rejects.toThrow();
    const stranger = await toPem(await newClientKeyPair(await newCA("other"), { commonName: "x" }));
    await expect(get("/healthz", { cert: stranger.certPem, key: stranger.keyPem })).rejects.toThrow();
  });

  it.each([
    ["previous=true", "first line\nsecond line\npart-one\nfourth line\n"],
    ["previous=true&tailLines=2", "one\nfourth line\n"],
    ["previous=true&tailLines=0", ""],
    ["previous=true&limitBytes=15", "first line\nseco"],
    ["previous=true&sinceTime=2025-01-01T00:00:03Z", "part-one\nfourth line\n"],
    ["previous=true&timestamps=true&tailLines=1", "2025-01-01T00:00:04Z fourth line\n"],
    ["", "restarted\n"],
  ])("serves containerLogs?%s", async (query, body) => {
    expect(await get(`/containerLogs/default/web/app?${query}`)).toEqual({ status: 200, body });
  });

  it("passes on the locator's errors and rejects bad parameters", async () => {
    expect(await get("/containerLogs/default/nope/app")).toEqual({
      status: 404,
      body: 'pod "nope" does not exist',
    });
    expect(await get("/containerLogs/default/web/init")).toEqual({
      status: 400,
      body: 'container "init" in pod "web" is waiting to start: ContainerCreating',
    });
    expect((await get("/containerLogs/default/web/app?tailLines=-1")).status).toBe(400);
    expect((await get("/containerLogs/default/web/app?limitBytes=0")).status).toBe(400);
    expect((await get("/nothing")).status).toBe(404);
  });

  it("follows a running container's log until the container stops", async () => {
    running = true;
    const pending = get("/containerLogs/default/web/app?follow=true");
    await new Promise((r) => setTimeout(r, 300));
    await appendFile(path.join(dir, "1.log"), "2025-01-01T00:01:01Z stdout F more output\n");
    await new Promise((r) => setTimeout(r, 300));
    running = false;
    expect(await pending).toEqual({ status: 200, body: "restarted\nmore output\n" });
    expect(await readFile(path.join(dir, "1.log"), "utf8")).toContain("more output");
  });
});

async function upgrade(pathAndQuery: string) {
  const socket = tls.connect({
    host: "127.0.0.1",
    port,
    ca: client.ca,
    cert: client.cert,
    key: client.key,
    servername: "node01",
  });
  await new Promise((resolve) => socket.once("secureConnect", resolve));
  return requestUpgrade(socket, pathAndQuery, {
    Connection: "Upgrade",
    Upgrade: "SPDY/3.1",
    "X-Stream-Protocol-Version": "v4.channel.k8s.io",
  });
}

describe("kubelet streaming endpoints", () => {
  it("upgrades /exec to SPDY over the same mutual TLS and runs the command in the container", async () => {
    const answer = await upgrade("/exec/default/web/app?command=id&command=-u&output=1");
    expect(answer.status).toBe(101);
    const error = await openAndWait(answer.connection!, { streamType: "error" });
    const stdout = await openAndWait(answer.connection!, { streamType: "stdout" });
    expect(await readAll(stdout)).toBe("c1 ran id -u\n");
    expect(JSON.parse(await readAll(error))).toEqual({ metadata: {}, status: "Success" });
  });

  it("attach follows the container's output from now on, stdout and stderr apart, until it stops", async () => {
    running = true;
    const answer = await upgrade("/attach/default/web/app?output=1&error=1");
    const error = await openAndWait(answer.connection!, { streamType: "error" });
    const stdout = await openAndWait(answer.connection!, { streamType: "stdout" });
    const stderr = await openAndWait(answer.connection!, { streamType: "stderr" });
    await new Promise((resolve) => setTimeout(resolve, 150));
    await appendFile(
      path.join(dir, "1.log"),
      "2025-01-01T00:02:00Z stdout F live\n2025-01-01T00:02:01Z stderr F oops\n",
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    const [out, err, status] = await Promise.all([readAll(stdout), readAll(stderr), readAll(error)]);
    expect(out).toBe("live\n");
    expect(err).toBe("oops\n");
    expect(JSON.parse(status)).toEqual({ metadata: {}, status: "Success" });
  });

  it("answers a streaming path reached without an upgrade as kubelet's handshake does", async () => {
    const answer = await get("/exec/default/web/app?command=ls&output=1");
    expect(answer).toEqual({ status: 400, body: "unable to upgrade: X-Stream-Protocol-Version is required" });
  });

  it("answers 404 for an upgrade to an unknown path", async () => {
    const answer = await upgrade("/nonsense");
    expect(answer.status).toBe(404);
  });
});

describe("CRI log parsing", () => {
  it("splits a line into time, stream, tag and content (content may hold spaces)", () => {
    expect(parseCriLine("2025-01-01T00:00:00Z stderr F a b  c")).toEqual({
      timestamp: "2025-01-01T00:00:00Z",
      stream: "stderr",
      partial: false,
      content: "a b  c",
    });
    expect(parseCriLine("garbage")).toBeUndefined();
  });

  it("computes since from sinceSeconds and refuses both since forms at once", () => {
    const now = Date.parse("2025-01-01T00:10:00Z");
    expect(parseLogOptions(new URLSearchParams("sinceSeconds=60"), now).sinceMs).toBe(now - 60_000);
    expect(() =>
      parseLogOptions(new URLSearchParams("sinceSeconds=1&sinceTime=2025-01-01T00:00:00Z")),
    ).toThrow("at most one of `sinceTime` or `sinceSeconds` may be specified");
  });
});
