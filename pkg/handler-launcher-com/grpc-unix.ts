// gRPC over unix sockets for the handler<->launcher services (upstream pkg/util/net/grpc): a
// server bound to a socket path, and a client with a deadline per call. Promise-based handlers and
// calls are adapted to grpc-js's callback style here, once.
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
import { mkdir, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { errorMessage } from "../util/error-message.js";

/** Seconds a client waits for the socket to accept a connection (upstream CONNECT_TIMEOUT_SECONDS). */
export const CONNECT_TIMEOUT_MS = 2_000;

export function unixTarget(socketPath: string): string {
  return `unix:${socketPath}`;
}

/** A message as a sender may write it: every field optional, as protobuf allows. */
export type Sendable<T> = T extends Buffer
  ? T
  : T extends (infer Item)[]
    ? Sendable<Item>[]
    : T extends object
      ? { [K in keyof T]?: Sendable<T[K]> | null }
      : T;

/** A promise-returning implementation for every method of a method table; an answer may leave
 * fields out (they are sent as their zero values). */
export type UnaryHandlers<Methods> = {
  [K in keyof Methods]: Methods[K] extends { request: infer Q; response: infer R }
    ? (request: Q) => Promise<Sendable<R>>
    : never;
};

/** Adds `service` to `server`, each method answered by the handler of the same name. */
export function addUnaryService<Methods>(
  server: grpc.Server,
  service: ServiceDefinition,
  handlers: UnaryHandlers<Methods>,
): void {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const name of Object.keys(service)) {
    const handler = (handlers as Record<string, ((request: unknown) => Promise<unknown>) | undefined>)[name];
    if (!handler) throw new Error(`no handler for ${service[name]?.path ?? name}`);
    implementation[name] = (
      call: grpc.ServerUnaryCall<unknown, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ): void => {
      handler(call.request).then(
        (response) => callback(null, response),
        (error: unknown) =>
          callback({
            code: grpc.status.INTERNAL,
            details: errorMessage(error),
          }),
      );
    };
  }
  server.addService(service, implementation);
}

/** Binds `server` to a fresh unix socket at `socketPath` (a stale socket file is removed first). */
export async function listenOnSocket(server: grpc.Server, socketPath: string): Promise<void> {
  await rm(socketPath, { force: true, recursive: true });
  await mkdir(dirname(socketPath), { recursive: true });
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(unixTarget(socketPath), grpc.ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

/** Stops `server`, forcing open calls closed after `graceMs` (upstream gives it one second). */
export async function stopServer(server: grpc.Server, graceMs = 1_000): Promise<void> {
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

/** A unary-call client on a unix socket. */
export class UnixSocketClient {
  private readonly client: grpc.Client;

  constructor(readonly socketPath: string) {
    // The authority is what upstream's dialer sends; nothing on the other side checks it.
    this.client = new grpc.Client(unixTarget(socketPath), grpc.credentials.createInsecure(), {
      "grpc.default_authority": "localhost",
    });
  }

  /** Resolves once the socket accepts a connection, or rejects after `timeoutMs`. */
  waitForReady(timeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client.waitForReady(Date.now() + timeoutMs, (error) =>
        error ? reject(new Error(`failed to dial ${this.socketPath}: ${error.message}`)) : resolve(),
      );
    });
  }

  call<Request, Response>(
    method: MethodDefinition<Request, Response>,
    request: Sendable<Request>,
    timeoutMs: number,
  ): Promise<Response> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        method.path,
        method.requestSerialize as (value: Sendable<Request>) => Buffer,
        method.responseDeserialize,
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + timeoutMs },
        (error, response) =>
          error || response === undefined ? reject(error ?? emptyAnswer(method)) : resolve(response),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}

function emptyAnswer(method: { path: string }): Error {
  return new Error(`${method.path} returned no response`);
}

/** gRPC status codes a caller may retry after reconnecting (upstream isTransientError). */
export function isTransientError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "number") return true;
  return (
    code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED || code === grpc.status.ABORTED
  );
}
