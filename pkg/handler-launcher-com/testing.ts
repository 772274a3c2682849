// Test helpers: a gRPC server on a throwaway unix socket.
import * as grpc from "@grpc/grpc-js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnSocket, stopServer } from "./grpc-unix.js";

export interface SocketServer {
  socketPath: string;
  stop(): Promise<void>;
}

/** Serves whatever `register` adds on `<fresh temp dir>/<name>`, or at `socketPath` when given. */
export async function serveOnTempSocket(
  name: string,
  register: (server: grpc.Server) => void,
  socketPath?: string,
): Promise<SocketServer> {
  const dir = mkdtempSync(join(tmpdir(), "kvts-grpc-"));
  const path = socketPath ?? join(dir, name);
  const server = new grpc.Server();
  register(server);
  await listenOnSocket(server, path);
  return {
    socketPath: path,
    stop: async () => {
      await stopServer(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
