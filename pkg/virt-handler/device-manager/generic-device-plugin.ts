import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import type { Logger } from "../../controller/index.js";
import { callUnary } from "./grpc-unary.js";
import {
  HEALTHY,
  KUBELET_SOCKET,
  UNHEALTHY,
  VERSION,
  allocateRequestSchema,
  devicePluginApi,
  unixAddress,
  type ContainerAllocateResponse,
  type Device,
  type RegisterRequest,
} from "./deviceplugin/v1beta1/api.js";

// A device plugin for a device node every VM may share (tun, kvm, vhost-net), as upstream's
// GenericDevicePlugin: it advertises `maxDevices` identical devices `<name>0..<name>N-1` under
// `devices.kubevirt.io/<name>` (the device plugin API has no notion of a shared device, so upstream
// registers an arbitrary number, which bounds VMIs per node), all Healthy while the device node exists,
// and answers Allocate with the device node mapped into the container.

export const DEVICE_NAMESPACE = "devices.kubevirt.io";
const REGISTER_TIMEOUT_MS = 5_000;

export interface GenericDevicePluginOptions {
  deviceName: string;
  /** The device node as the container sees it, e.g. /dev/net/tun. */
  devicePath: string;
  maxDevices: number;
  /** cgroup device permissions handed to the runtime ("rw", or "rwm" on cgroup v2 as upstream). */
  permissions: string;
  /** Kubelet's device plugin directory, holding kubelet.sock and the plugins' sockets. */
  pluginDir: string;
  /** Where the host's filesystem is visible, for the health check of the device node. */
  deviceRoot: string;
  logger: Logger;
  healthCheckIntervalMs?: number;
}

/** Upstream's socket name, `kubevirt-<device>.sock`, in kubelet's plugin directory. */
export function pluginSocketPath(pluginDir: string, deviceName: string): string {
  return path.join(pluginDir, `kubevirt-${deviceName}.sock`);
}

export class GenericDevicePlugin {
  readonly resourceName: string;
  readonly socketPath: string;
  private server: grpc.Server | undefined;
  private readonly streams = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  private healthTimer: NodeJS.Timeout | undefined;
  private health = HEALTHY;
  private registered = false;

  constructor(private readonly opts: GenericDevicePluginOptions) {
    this.resourceName = `${DEVICE_NAMESPACE}/${opts.deviceName}`;
    this.socketPath = pluginSocketPath(opts.pluginDir, opts.deviceName);
  }

  get deviceName(): string {
    return this.opts.deviceName;
  }

  /** True once the plugin serves its socket and kubelet accepted the registration. */
  get initialized(): boolean {
    return this.registered;
  }

  devices(): Device[] {
    return Array.from({ length: this.opts.maxDevices }, (_, i) => ({
      ID: `${this.opts.deviceName}${i}`,
      health: this.health,
    }));
  }

  async start(): Promise<void> {
    await this.stop();
    this.health = this.devicePresent() ? HEALTHY : UNHEALTHY;
    // A stale socket from a previous run would make bind fail.
    await rm(this.socketPath, { force: true });
    this.server = await this.serve();
    await this.register();
    this.registered = true;
    this.healthTimer = setInterval(() => this.checkHealth(), this.opts.healthCheckIntervalMs ?? 5_000);
    this.healthTimer.unref();
    this.opts.logger.info({ resource: this.resourceName }, `${this.opts.deviceName} device plugin started`);
  }

  async stop(): Promise<void> {
    this.registered = false;
    clearInterval(this.healthTimer);
    this.healthTimer = undefined;
    for (const stream of this.streams) stream.end();
    this.streams.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    await rm(this.socketPath, { force: true });
  }

  /** Kubelet removes every plugin socket when it restarts: then the plugin must start over. */
  socketGone(): boolean {
    return this.server !== undefined && !existsSync(this.socketPath);
  }

  private devicePresent(): boolean {
    return existsSync(path.join(this.opts.deviceRoot, this.opts.devicePath));
  }

  private checkHealth(): void {
    const health = this.devicePresent() ? HEALTHY : UNHEALTHY;
    if (health === this.health) return;
    this.health = health;
    this.opts.logger.info(
      { resource: this.resourceName, health },
      `device '${this.opts.devicePath}' is ${health}`,
    );
    for (const stream of this.streams) stream.write({ devices: this.devices() });
  }

  private serve(): Promise<grpc.Server> {
    const server = new grpc.Server();
    server.addService(devicePluginApi().DevicePlugin.service, {
      GetDevicePluginOptions: (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
        callback(null, { pre_start_required: false, get_preferred_allocation_available: false }),
      ListAndWatch: (stream: grpc.ServerWritableStream<unknown, unknown>) => this.listAndWatch(stream),
      Allocate: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) =>
        this.allocate(call.request, callback),
      PreStartContainer: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, {}),
    });
    return new Promise((resolve, reject) => {
      server.bindAsync(unixAddress(this.socketPath), grpc.ServerCredentials.createInsecure(), (error) =>
        error ? reject(error) : resolve(server),
      );
    });
  }

  private listAndWatch(stream: grpc.ServerWritableStream<unknown, unknown>): void {
    this.streams.add(stream);
    const forget = () => this.streams.delete(stream);
    stream.on("cancelled", forget);
    stream.on("close", forget);
    stream.write({ devices: this.devices() });
  }

  private allocate(raw: unknown, callback: grpc.sendUnaryData<unknown>): void {
    const parsed = allocateRequestSchema.safeParse(raw);
    if (!parsed.success) {
      callback({ code: grpc.status.INVALID_ARGUMENT, details: parsed.error.message });
      return;
    }
    // Kubelet expects one response per container request.
    const containerResponses = parsed.data.container_requests.map((): ContainerAllocateResponse => ({
      envs: {},
      mounts: [],
      annotations: {},
      devices: [
        {
          host_path: this.opts.devicePath,
          container_path: this.opts.devicePath,
          permissions: this.opts.permissions,
        },
      ],
    }));
    callback(null, { container_responses: containerResponses });
  }

  private async register(): Promise<void> {
    const { Registration } = devicePluginApi();
    const client = new Registration(
      unixAddress(path.join(this.opts.pluginDir, KUBELET_SOCKET)),
      grpc.credentials.createInsecure(),
    );
    const request: RegisterRequest = {
      version: VERSION,
      endpoint: path.basename(this.socketPath),
      resource_name: this.resourceName,
      options: { pre_start_required: false, get_preferred_allocation_available: false },
    };
    try {
      await callUnary(client, "Register", request, REGISTER_TIMEOUT_MS);
    } finally {
      client.close();
    }
  }
}
