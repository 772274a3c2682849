// Test fixtures for the migration proxy: a KubeVirt-like CA with the handler's certificates as
// virt-operator issues them, a unix socket server standing in for a launcher, and a client for it.
import { createHash } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import {
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  toPem,
  type PemKeyPair,
} from "../../certificates/triple.js";
import type { MigrationTLS } from "./tls.js";

export interface HandlerCertificates {
  caBundle: string;
  /** kubevirt.io:system:node:virt-handler (Secret kubevirt-virt-handler-server-certs). */
  server: PemKeyPair;
  /** kubevirt.io:system:client:migration (Secret kubevirt-virt-handler-migration-client-certs). */
  migrationClient: PemKeyPair;
  /** kubevirt.io:system:client:virt-handler (the older client certificate). */
  handlerClient: PemKeyPair;
  /** A serving certificate of the same CA under another name (kubevirt.io:system:node:virt-api). */
  misnamedServer: PemKeyPair;
}

export async function newHandlerCertificates(): Promise<HandlerCertificates> {
  const ca = await newCA("kubevirt.io");
  return {
    caBundle: (await toPem(ca)).certPem,
    server: await toPem(await newServerKeyPair(ca, { commonName: "kubevirt.io:system:node:virt-handler" })),
    migrationClient: await toPem(
      await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:migration" }),
    ),
    misnamedServer: await toPem(
      await newServerKeyPair(ca, { commonName: "kubevirt.io:system:node:virt-api" }),
    ),
    handlerClient: await toPem(
      await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:virt-handler" }),
    ),
  };
}

export function migrationTLSOf(
  certs: HandlerCertificates,
  overrides: Partial<MigrationTLS> = {},
): MigrationTLS {
  return {
    caBundle: () => certs.caBundle,
    serverCertificate: () => certs.server,
    clientCertificates: () => [certs.migrationClient, certs.handlerClient],
    clientCommonNameTypes: ["virt-handler", "migration"],
    ...overrides,
  };
}

export type LauncherBehaviour =
  /** Writes back every byte as it arrives and ends when the client ends. */
  | "echo"
  /** Answers only after the client's half-close: the byte count and SHA-256 of what it received. */
  | "digest-after-end"
  /** Says "bye" and half-closes at once, then still reads what the client sends. */
  | "bye-first";

/** A unix socket server standing in for libvirt's or QEMU's socket in a launcher pod. */
export async function fakeLauncherSocket(
  socketPath: string,
  behaviour: LauncherBehaviour,
  /** Everything a connection sent, once it half-closed. */
  onReceived: (received: Buffer) => void = () => undefined,
): Promise<{ server: Server; accepted: () => number; close: () => Promise<void> }> {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    accepted++;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => onReceived(Buffer.concat(chunks)));
    if (behaviour === "echo") socket.pipe(socket);
    else if (behaviour === "bye-first") socket.end("bye");
    else socket.on("end", () => socket.end(digestOf(Buffer.concat(chunks))));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    server,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Connects to a unix socket, sends `payload`, half-closes, and collects everything until the peer ends. */
export function exchange(socketPath: string, payload: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ path: socketPath, allowHalfOpen: true }, () => socket.end(payload));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => resolve(Buffer.concat(chunks)));
    // A refused connection is reset or closed early: what came back so far is the answer.
    socket.on("error", () => resolve(Buffer.concat(chunks)));
    socket.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

export const digestOf = (payload: Buffer): string =>
  `${payload.length} ${createHash("sha256").update(payload).digest("hex")}`;
