import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import {
  DEVICE_PLUGIN_VERSION,
  DevicePluginClient,
  devicePluginPackage,
  HEALTHY,
  KUBELET_SOCKET,
  registerRequestSchema,
  SUPPORTED_VERSIONS,
  unixAddress,
  type ContainerAllocateResponse,
  type Device,
  type DevicePluginOptions,
} from "./device-plugin-api.js";
import type { ExtendedResources } from "./node-object.js";
import type { Logger } from "./logger.js";
import { errorMessage } from "../../../pkg/util/error-message.js";

// kubelet's device manager, reduced to what the agent needs: serves Registration on kubelet.sock, keeps a
// ListAndWatch stream to each registered plugin, turns the device lists into Node capacity (all devices)
// and allocatable (healthy ones), and allocates devices to containers through the plugin's Allocate.
// A plugin whose stream ends keeps its capacity with no healthy devices for a grace period of 5 minutes
// (it may re-register), then its resource drops to 0.

export const ENDPOINT_STOP_GRACE_MS = 5 * 60_000;

/** A pod that cannot be admitted for its device requests; the pod fails with this reason and message. */
export class AdmissionError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface DeviceAllocation {
  resource: string;
  deviceIDs: string[];
  response: ContainerAllocateResponse;
}

interface Endpoint {
  client: DevicePluginClient;
  options: DevicePluginOptions;
  devices: Map<string, Device>;
  stopped: boolean;
  cancel: () => void;
}

/** Extended resources are the ones device plugins serve: domain-qualified names outside kubernetes.io. */
export function isExtendedResource(name: string): boolean {
  return name.includes("/") && !name.startsWith("kubernetes.io/") && !name.startsWith("requests.");
}

export class DeviceManager {
  private readonly endpoints = new Map<string, Endpoint>();
  /** Resources that were served once and are reported as 0 after their plugin went away. */
  private readonly retired = new Set<string>();
  /** podUID → container → resource → allocation. */
  private readonly allocations = new Map<string, Map<string, Map<string, DeviceAllocation>>>();
  private server: grpc.Server | undefined;

  constructor(
    readonly pluginDir: string,
    private readonly log: Logger,
    private readonly onCapacityChange: () => void,
  ) {}

  get socketPath(): string {
    return path.join(this.pluginDir, KUBELET_SOCKET);
  }

  /** Serves Registration on a fresh kubelet.sock; plugins watch for it and (re-)register. */
  async start(): Promise<void> {
    await mkdir(this.pluginDir, { recursive: true });
    await rm(this.socketPath, { force: true });
    const server = new grpc.Server();
    server.addService(devicePluginPackage().Registration.service, {
      Register: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        try {
          this.register(call.request);
          callback(null, {});
        } catch (err) {
          callback({ code: grpc.status.UNKNOWN, details: errorMessage(err) }, null);
        }
      },
    });
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(unixAddress(this.socketPath), grpc.ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    this.server = server;
  }

  async stop(): Promise<void> {
    for (const endpoint of this.endpoints.values()) {
      endpoint.cancel();
      endpoint.client.close();
    }
    this.endpoints.clear();
    await new Promise<void>((resolve) =>
      this.server ? this.server.tryShutdown(() => resolve()) : resolve(),
    );
    this.server = undefined;
    await rm(this.socketPath, { force: true });
  }

  private register(raw: unknown): void {
    const request = registerRequestSchema.parse(raw);
    if (!SUPPORTED_VERSIONS.includes(request.version)) {
      throw new Error(
        `requested API version "${request.version}" is not supported by kubelet. Supported versions are ["${DEVICE_PLUGIN_VERSION}"]`,
      );
    }
    if (!isExtendedResource(request.resource_name)) {
      throw new Error(`the ResourceName "${request.resource_name}" is invalid`);
    }
    if (path.basename(request.endpoint) !== request.endpoint || request.endpoint === KUBELET_SOCKET) {
      throw new Error(`invalid endpoint "${request.endpoint}"`);
    }
    this.log.info(
      { resource: request.resource_name, endpoint: request.endpoint },
      "device plugin registered",
    );
    this.connect(request.resource_name, request.endpoint, request.options ?? undefined);
  }

  private connect(resource: string, endpointName: string, options: DevicePluginOptions | undefined): void {
    const previous = this.endpoints.get(resource);
    if (previous) {
      previous.cancel();
      previous.client.close();
    }
    const client = new DevicePluginClient(path.join(this.pluginDir, endpointName));
    const endpoint: Endpoint = {
      client,
      options: options ?? { pre_start_required: false, get_preferred_allocation_available: false },
      devices: new Map(previous?.devices ?? []),
      stopped: false,
      cancel: () => {},
    };
    this.endpoints.set(resource, endpoint);
    this.retired.delete(resource);
    const stream = client.listAndWatch((devices) => {
      endpoint.devices = new Map(devices.map((d) => [d.ID, d]));
      this.onCapacityChange();
    });
    endpoint.cancel = stream.cancel;
    stream.done
      .catch((err: unknown) => this.log.warn({ err, resource }, "device plugin stream failed"))
      .finally(() => this.endpointStopped(resource, endpoint));
  }

  private endpointStopped(resource: string, endpoint: Endpoint): void {
    if (this.endpoints.get(resource) !== endpoint) return; // replaced by a newer registration
    endpoint.stopped = true;
    this.log.info({ resource }, "device plugin went away; its devices are unhealthy until it re-registers");
    this.onCapacityChange();
    const timer = setTimeout(() => {
      if (this.endpoints.get(resource) !== endpoint) return;
      this.endpoints.delete(resource);
      this.retired.add(resource);
      endpoint.client.close();
      this.onCapacityChange();
    }, ENDPOINT_STOP_GRACE_MS);
    timer.unref();
  }

  private healthyIDs(endpoint: Endpoint): string[] {
    if (endpoint.stopped) return [];
    return [...endpoint.devices.values()].filter((d) => d.health === HEALTHY).map((d) => d.ID);
  }

  extendedResources(): ExtendedResources {
    const capacity: Record<string, string> = {};
    const allocatable: Record<string, string> = {};
    for (const [resource, endpoint] of this.endpoints) {
      capacity[resource] = String(endpoint.devices.size);
      allocatable[resource] = String(this.healthyIDs(endpoint).length);
    }
    for (const resource of this.retired) {
      capacity[resource] = "0";
      allocatable[resource] = "0";
    }
    return { capacity, allocatable };
  }

  private allocatedIDs(resource: string, except: { pod: string; container: string }): Set<string> {
    const ids = new Set<string>();
    for (const [pod, containers] of this.allocations) {
      for (const [container, byResource] of containers) {
        if (pod === except.pod && container === except.container) continue;
        for (const id of byResource.get(resource)?.deviceIDs ?? []) ids.add(id);
      }
    }
    return ids;
  }

  /**
   * Allocates `count` devices of `resource` to a container, or returns its earlier allocation (container
   * restarts keep their devices). Throws AdmissionError with kubelet's reason and message.
   */
  async allocate(
    podUID: string,
    container: string,
    resource: string,
    count: number,
  ): Promise<DeviceAllocation> {
    const existing = this.allocations.get(podUID)?.get(container)?.get(resource);
    if (existing) return existing;
    const endpoint = this.endpoints.get(resource);
    if (!endpoint) {
      throw new AdmissionError(
        `OutOf${resource}`,
        `Node didn't have enough resource: ${resource}, requested: ${count}, used: 0, capacity: 0`,
      );
    }
    const taken = this.allocatedIDs(resource, { pod: podUID, container });
    const free = this.healthyIDs(endpoint).filter((id) => !taken.has(id));
    if (free.length < count) {
      throw new AdmissionError(
        "UnexpectedAdmissionError",
        `Allocate failed due to requested number of devices unavailable for ${resource}. Requested: ${count}, Available: ${free.length}, which is unexpected`,
      );
    }
    const deviceIDs = free.slice(0, count);
    const response = await endpoint.client.allocate(deviceIDs);
    const allocation = { resource, deviceIDs, response };
    this.restore(podUID, container, allocation);
    return allocation;
  }

  /** Calls PreStartContainer for plugins that asked for it at registration. */
  async preStart(allocation: DeviceAllocation): Promise<void> {
    const endpoint = this.endpoints.get(allocation.resource);
    if (endpoint?.options.pre_start_required) await endpoint.client.preStartContainer(allocation.deviceIDs);
  }

  /** Records an allocation made by an earlier agent run (from the pod's state record). */
  restore(podUID: string, container: string, allocation: DeviceAllocation): void {
    const containers = this.allocations.get(podUID) ?? new Map<string, Map<string, DeviceAllocation>>();
    const byResource = containers.get(container) ?? new Map<string, DeviceAllocation>();
    byResource.set(allocation.resource, allocation);
    containers.set(container, byResource);
    this.allocations.set(podUID, containers);
  }

  release(podUID: string): void {
    this.allocations.delete(podUID);
  }
}
