import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { KUBELET_SOCKET, devicePluginApi, unixAddress } from "../deviceplugin/v1beta1/api.js";
import { callUnary } from "../grpc-unary.js";

// Kubelet's side of the device plugin API for tests: a Registration server on kubelet.sock that records
// requests, and a real gRPC client to a registered plugin's socket.

export class FakeKubelet {
  readonly registrations: unknown[] = [];
  private server: grpc.Server | undefined;

  constructor(private readonly pluginDir: string) {}

  async start(): Promise<void> {
    const server = new grpc.Server();
    server.addService(devicePluginApi().Registration.service, {
      Register: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        this.registrations.push(call.request);
        callback(null, {});
      },
    });
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(
        unixAddress(path.join(this.pluginDir, KUBELET_SOCKET)),
        grpc.ServerCredentials.createInsecure(),
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }
}

export class PluginClient {
  private readonly client: grpc.Client;

  constructor(socketPath: string) {
    const { DevicePlugin } = devicePluginApi();
    this.client = new DevicePlugin(unixAddress(socketPath), grpc.credentials.createInsecure());
  }

  allocate(request: unknown): Promise<unknown> {
    return callUnary(this.client, "Allocate", request, 5_000);
  }

  /** Opens ListAndWatch and returns every list the plugin sent so far, live. */
  listAndWatch(): { lists: unknown[]; cancel: () => void } {
    const lists: unknown[] = [];
    const open = (
      this.client as unknown as Record<string, (req: unknown) => grpc.ClientReadableStream<unknown>>
    )["ListAndWatch"];
    if (!open) throw new Error("no ListAndWatch");
    const stream = open.call(this.client, {});
    stream.on("data", (list: unknown) => lists.push(list));
    stream.on("error", () => undefined); // cancellation surfaces as an error
    return { lists, cancel: () => stream.cancel() };
  }

  close(): void {
    this.client.close();
  }
}
