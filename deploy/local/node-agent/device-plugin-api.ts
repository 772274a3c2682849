import * as grpc from "@grpc/grpc-js";
import { z } from "zod";
import {
  devicePluginApi,
  unixAddress,
  VERSION as DEVICE_PLUGIN_VERSION,
} from "../../../pkg/virt-handler/device-manager/deviceplugin/v1beta1/api.js";

// The kubelet side of the device plugin API (v1beta1): the services and constants come from the one
// definition the suite keeps (virt-handler's plugins use it too); here, zod schemas for every message the
// agent receives (plugins are untrusted input) and a typed client for a plugin's DevicePlugin service.
export {
  HEALTHY,
  KUBELET_SOCKET,
  UNHEALTHY,
  unixAddress,
  devicePluginApi as devicePluginPackage,
} from "../../../pkg/virt-handler/device-manager/deviceplugin/v1beta1/api.js";
export { DEVICE_PLUGIN_VERSION };
export const SUPPORTED_VERSIONS = [DEVICE_PLUGIN_VERSION];
/** Relative to the node root, like kubelet's /var/lib/kubelet/device-plugins/. */
export const DEVICE_PLUGIN_DIR = "var/lib/kubelet/device-plugins";

export const devicePluginOptionsSchema = z.object({
  pre_start_required: z.boolean().default(false),
  get_preferred_allocation_available: z.boolean().default(false),
});

export const registerRequestSchema = z.object({
  version: z.string(),
  endpoint: z.string(),
  resource_name: z.string(),
  options: devicePluginOptionsSchema.nullish(),
});

export const deviceSchema = z.object({ ID: z.string(), health: z.string() });
export const listAndWatchResponseSchema = z.object({ devices: z.array(deviceSchema).default([]) });

export const containerAllocateResponseSchema = z.object({
  envs: z.record(z.string(), z.string()).default({}),
  mounts: z
    .array(
      z.object({ container_path: z.string(), host_path: z.string(), read_only: z.boolean().default(false) }),
    )
    .default([]),
  devices: z
    .array(
      z.object({ container_path: z.string(), host_path: z.string(), permissions: z.string().default("") }),
    )
    .default([]),
  annotations: z.record(z.string(), z.string()).default({}),
});
export const allocateResponseSchema = z.object({
  container_responses: z.array(containerAllocateResponseSchema).default([]),
});

export type RegisterRequest = z.infer<typeof registerRequestSchema>;
export type DevicePluginOptions = z.infer<typeof devicePluginOptionsSchema>;
export type Device = z.infer<typeof deviceSchema>;
export type ContainerAllocateResponse = z.infer<typeof containerAllocateResponseSchema>;

/** A typed client for one plugin's DevicePlugin service. */
export class DevicePluginClient {
  private readonly client: grpc.Client & Record<string, unknown>;

  constructor(socketPath: string) {
    const { DevicePlugin } = devicePluginApi();
    this.client = new DevicePlugin(
      unixAddress(socketPath),
      grpc.credentials.createInsecure(),
    ) as grpc.Client & Record<string, unknown>;
  }

  private unary(method: string, request: object): Promise<unknown> {
    const call = this.client[method] as (
      req: object,
      opts: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, res: unknown) => void,
    ) => void;
    return new Promise((resolve, reject) => {
      call.call(this.client, request, { deadline: Date.now() + 10_000 }, (err, res) =>
        err ? reject(err) : resolve(res),
      );
    });
  }

  /** Streams device lists until the plugin ends the stream; resolves then, rejects on a broken stream. */
  listAndWatch(onDevices: (devices: Device[]) => void): { done: Promise<void>; cancel: () => void } {
    const open = this.client.ListAndWatch as (req: object) => grpc.ClientReadableStream<unknown>;
    const stream = open.call(this.client, {});
    const done = new Promise<void>((resolve, reject) => {
      stream.on("data", (message: unknown) => {
        const parsed = listAndWatchResponseSchema.safeParse(message);
        if (parsed.success) onDevices(parsed.data.devices);
      });
      stream.on("end", resolve);
      stream.on("error", (err: grpc.ServiceError) =>
        err.code === grpc.status.CANCELLED ? resolve() : reject(err),
      );
    });
    return { done, cancel: () => stream.cancel() };
  }

  async allocate(deviceIDs: string[]): Promise<ContainerAllocateResponse> {
    const answer = allocateResponseSchema.parse(
      await this.unary("Allocate", { container_requests: [{ devices_ids: deviceIDs }] }),
    );
    const first = answer.container_responses[0];
    if (!first) throw new Error("device plugin answered Allocate without a container response");
    return first;
  }

  async preStartContainer(deviceIDs: string[]): Promise<void> {
    await this.unary("PreStartContainer", { devices_ids: deviceIDs });
  }

  close(): void {
    this.client.close();
  }
}
