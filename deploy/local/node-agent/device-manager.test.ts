import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { devicePluginPackage, unixAddress } from "./device-plugin-api.js";
import { AdmissionError, DeviceManager } from "./device-manager.js";
import { silentLogger } from "./logger.js";

// A fake device plugin served over a real unix socket, registering with the manager the way
// virt-handler's plugins do.

interface FakePlugin {
  server: grpc.Server;
  push: (devices: { ID: string; health: string }[]) => void;
  end: () => void;
  allocations: string[][];
  preStarts: string[][];
}

async function startPlugin(dir: string, socket: string): Promise<FakePlugin> {
  const server = new grpc.Server();
  let stream: grpc.ServerWritableStream<unknown, unknown> | undefined;
  const pending: object[] = [];
  const plugin: FakePlugin = {
    server,
    allocations: [],
    preStarts: [],
    push: (devices) => (stream ? stream.write({ devices }) : pending.push({ devices })),
    end: () => stream?.end(),
  };
  server.addService(devicePluginPackage().DevicePlugin.service, {
    GetDevicePluginOptions: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
      cb(null, { pre_start_required: true }),
    ListAndWatch: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      stream = call;
      for (const message of pending.splice(0)) call.write(message);
    },
    Allocate: (
      call: grpc.ServerUnaryCall<{ container_requests: { devices_ids: string[] }[] }, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) => {
      const ids = call.request.container_requests[0]?.devices_ids ?? [];
      plugin.allocations.push(ids);
      cb(null, {
        container_responses: [
          {
            envs: { TUN_DEVICES: ids.join(",") },
            mounts: [{ container_path: "/var/run/x", host_path: "/run/x", read_only: true }],
            devices: [{ container_path: "/dev/net/tun", host_path: "/dev/net/tun", permissions: "rw" }],
          },
        ],
      });
    },
    PreStartContainer: (
      call: grpc.ServerUnaryCall<{ devices_ids: string[] }, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) => {
      plugin.preStarts.push(call.request.devices_ids);
      cb(null, {});
    },
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(unixAddress(path.join(dir, socket)), grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  return plugin;
}

function register(dir: string, request: object): Promise<void> {
  const { Registration } = devicePluginPackage();
  const client = new Registration(
    unixAddress(path.join(dir, "kubelet.sock")),
    grpc.credentials.createInsecure(),
  ) as unknown as grpc.Client & {
    Register: (req: object, cb: (err: grpc.ServiceError | null) => void) => void;
  };
  return new Promise((resolve, reject) =>
    client.Register(request, (err) => {
      client.close();
      if (err) reject(err);
      else resolve();
    }),
  );
}

describe("DeviceManager", () => {
  let dir: string;
  let manager: DeviceManager;
  let changes: number;
  const plugins: FakePlugin[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "kvts-dp-"));
    changes = 0;
    manager = new DeviceManager(dir, silentLogger(), () => changes++);
    await manager.start();
  });

  afterEach(async () => {
    for (const p of plugins.splice(0)) p.server.forceShutdown();
    await manager.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("registers a plugin, publishes its devices as capacity, and allocates through it", async () => {
    const plugin = await startPlugin(dir, "kubevirt-tun.sock");
    plugins.push(plugin);
    plugin.push([
      { ID: "tun1", health: "Healthy" },
      { ID: "tun2", health: "Healthy" },
      { ID: "tun3", health: "Unhealthy" },
    ]);
    await register(dir, {
      version: "v1beta1",
      endpoint: "kubevirt-tun.sock",
      resource_name: "devices.kubevirt.io/tun",
      options: { pre_start_required: true },
    });
    await vi.waitFor(() => expect(manager.extendedResources().capacity["devices.kubevirt.io/tun"]).toBe("3"));
    expect(manager.extendedResources().allocatable).toEqual({ "devices.kubevirt.io/tun": "2" });
    expect(changes).toBeGreaterThan(0);

    const first = await manager.allocate("pod1", "compute", "devices.kubevirt.io/tun", 1);
    expect(first.deviceIDs).toEqual(["tun1"]);
    expect(first.response).toEqual({
      envs: { TUN_DEVICES: "tun1" },
      mounts: [{ container_path: "/var/run/x", host_path: "/run/x", read_only: true }],
      devices: [{ container_path: "/dev/net/tun", host_path: "/dev/net/tun", permissions: "rw" }],
      annotations: {},
    });
    await manager.preStart(first);
    expect(plugin.preStarts).toEqual([["tun1"]]);

    // The same container asking again keeps its devices; another pod gets the next free healthy one.
    expect((await manager.allocate("pod1", "compute", "devices.kubevirt.io/tun", 1)).deviceIDs).toEqual([
      "tun1",
    ]);
    expect((await manager.allocate("pod2", "compute", "devices.kubevirt.io/tun", 1)).deviceIDs).toEqual([
      "tun2",
    ]);
    const refused = manager.allocate("pod3", "compute", "devices.kubevirt.io/tun", 1);
    await expect(refused).rejects.toBeInstanceOf(AdmissionError);
    await expect(refused).rejects.toThrow(
      "Allocate failed due to requested number of devices unavailable for devices.kubevirt.io/tun. Requested: 1, Available: 0, which is unexpected",
    );
    manager.release("pod1");
    expect((await manager.allocate("pod3", "compute", "devices.kubevirt.io/tun", 1)).deviceIDs).toEqual([
      "tun1",
    ]);
    expect(plugin.allocations).toEqual([["tun1"], ["tun2"], ["tun1"]]);
  });

  it("follows device health changes and marks everything unhealthy when the plugin goes away", async () => {
    const plugin = await startPlugin(dir, "p.sock");
    plugins.push(plugin);
    plugin.push([{ ID: "a", health: "Healthy" }]);
    await register(dir, { version: "v1beta1", endpoint: "p.sock", resource_name: "example.com/widget" });
    await vi.waitFor(() => expect(manager.extendedResources().allocatable["example.com/widget"]).toBe("1"));
    plugin.push([
      { ID: "a", health: "Healthy" },
      { ID: "b", health: "Healthy" },
    ]);
    await vi.waitFor(() => expect(manager.extendedResources().allocatable["example.com/widget"]).toBe("2"));
    plugin.end();
    await vi.waitFor(() =>
      expect(manager.extendedResources()).toEqual({
        capacity: { "example.com/widget": "2" },
        allocatable: { "example.com/widget": "0" },
      }),
    );
  });

  it.each([
    [
      { version: "v1alpha", endpoint: "x.sock", resource_name: "example.com/x" },
      'requested API version "v1alpha" is not supported by kubelet',
    ],
    [{ version: "v1beta1", endpoint: "x.sock", resource_name: "cpu" }, 'the ResourceName "cpu" is invalid'],
  ])("refuses a bad registration %j", async (request, message) => {
    await expect(register(dir, request)).rejects.toThrow(message);
  });

  it("refuses requests for an extended resource no plugin serves", async () => {
    const attempt = manager.allocate("pod", "c", "devices.kubevirt.io/kvm", 1);
    await expect(attempt).rejects.toMatchObject({
      reason: "OutOfdevices.kubevirt.io/kvm",
      message:
        "Node didn't have enough resource: devices.kubevirt.io/kvm, requested: 1, used: 0, capacity: 0",
    });
  });
});
