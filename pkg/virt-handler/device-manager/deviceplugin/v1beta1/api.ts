import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { z } from "zod";

// The kubelet device plugin API as the plugin side sees it: the loaded services, the constants kubelet
// defines, and zod schemas for what a plugin receives from kubelet.

export const VERSION = "v1beta1";
export const HEALTHY = "Healthy";
export const UNHEALTHY = "Unhealthy";
/** Kubelet's registration socket, inside the device plugin directory. */
export const KUBELET_SOCKET = "kubelet.sock";
/** Relative to the kubelet root (/var/lib/kubelet). */
export const DEVICE_PLUGIN_SUBDIR = "device-plugins";

const PROTO_PATH = fileURLToPath(new URL("./api.proto", import.meta.url));

export const allocateRequestSchema = z.object({
  container_requests: z.array(z.object({ devices_ids: z.array(z.string()).default([]) })).default([]),
});
export type AllocateRequest = z.infer<typeof allocateRequestSchema>;

export interface Device {
  ID: string;
  health: string;
}

export interface DeviceSpec {
  container_path: string;
  host_path: string;
  permissions: string;
}

export interface ContainerAllocateResponse {
  envs: Record<string, string>;
  mounts: { container_path: string; host_path: string; read_only: boolean }[];
  devices: DeviceSpec[];
  annotations: Record<string, string>;
}

export interface RegisterRequest {
  version: string;
  endpoint: string;
  resource_name: string;
  options: { pre_start_required: boolean; get_preferred_allocation_available: boolean };
}

interface DevicePluginApi {
  Registration: grpc.ServiceClientConstructor;
  DevicePlugin: grpc.ServiceClientConstructor;
}

let loaded: DevicePluginApi | undefined;

export function devicePluginApi(): DevicePluginApi {
  if (!loaded) {
    const definition = protoLoader.loadSync(PROTO_PATH, {
      keepCase: true,
      longs: Number,
      defaults: true,
      arrays: true,
    });
    loaded = (grpc.loadPackageDefinition(definition) as unknown as { v1beta1: DevicePluginApi }).v1beta1;
  }
  return loaded;
}

export function unixAddress(socketPath: string): string {
  return `unix://${socketPath}`;
}
