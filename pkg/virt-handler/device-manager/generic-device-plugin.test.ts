import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../controller/index.js";
import { GenericDevicePlugin } from "./generic-device-plugin.js";
import { until } from "./testing/until.js";
import { FakeKubelet, PluginClient } from "./testing/fake-kubelet.js";

// Real gRPC over real unix sockets: a fake kubelet Registration server, the plugin, and kubelet's client.

describe("GenericDevicePlugin", () => {
  let dir: string;
  let pluginDir: string;
  let deviceRoot: string;
  let kubelet: FakeKubelet;
  let plugin: GenericDevicePlugin | undefined;
  let client: PluginClient | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "dp-"));
    pluginDir = path.join(dir, "device-plugins");
    deviceRoot = path.join(dir, "host");
    await mkdir(pluginDir, { recursive: true });
    await mkdir(path.join(deviceRoot, "dev/net"), { recursive: true });
    await writeFile(path.join(deviceRoot, "dev/net/tun"), "");
    kubelet = new FakeKubelet(pluginDir);
    await kubelet.start();
  });

  afterEach(async () => {
    client?.close();
    await plugin?.stop();
    await kubelet.stop();
    await rm(dir, { recursive: true, force: true });
  });

  function tunPlugin(maxDevices: number): GenericDevicePlugin {
    return new GenericDevicePlugin({
      deviceName: "tun",
      devicePath: "/dev/net/tun",
      maxDevices,
      permissions: "rw",
      pluginDir,
      deviceRoot,
      logger: silentLogger,
      healthCheckIntervalMs: 20,
    });
  }

  it("registers devices.kubevirt.io/tun with kubelet under upstream's socket name", async () => {
    plugin = tunPlugin(3);
    await plugin.start();
    expect(plugin.initialized).toBe(true);
    expect(kubelet.registrations).toEqual([
      {
        version: "v1beta1",
        endpoint: "kubevirt-tun.sock",
        resource_name: "devices.kubevirt.io/tun",
        options: { pre_start_required: false, get_preferred_allocation_available: false },
      },
    ]);
  });

  it("lists max-devices healthy devices and marks them unhealthy when the device node goes away", async () => {
    plugin = tunPlugin(3);
    await plugin.start();
    client = new PluginClient(plugin.socketPath);
    const watch = client.listAndWatch();
    await until(() => watch.lists.length === 1);
    expect(watch.lists[0]).toEqual({
      devices: ["tun0", "tun1", "tun2"].map((ID) => ({ ID, health: "Healthy", topology: null })),
    });
    await rm(path.join(deviceRoot, "dev/net/tun"));
    await until(() => watch.lists.length === 2);
    expect(watch.lists[1]).toMatchObject({ devices: [{ health: "Unhealthy" }, {}, {}] });
    watch.cancel();
  });

  it("allocates the device node to each container that asks", async () => {
    plugin = tunPlugin(2);
    await plugin.start();
    client = new PluginClient(plugin.socketPath);
    const response = await client.allocate({
      container_requests: [{ devices_ids: ["tun0"] }, { devices_ids: ["tun1"] }],
    });
    const spec = { container_path: "/dev/net/tun", host_path: "/dev/net/tun", permissions: "rw" };
    expect(response).toEqual({
      container_responses: [
        { envs: {}, mounts: [], devices: [spec], annotations: {} },
        { envs: {}, mounts: [], devices: [spec], annotations: {} },
      ],
    });
  });

  it("fails to start when no kubelet listens, and removes its socket when stopped", async () => {
    await kubelet.stop();
    await rm(path.join(pluginDir, "kubelet.sock"), { force: true });
    plugin = tunPlugin(1);
    await expect(plugin.start()).rejects.toThrow();
    expect(plugin.initialized).toBe(false);
    expect(existsSync(plugin.socketPath)).toBe(true);
    await plugin.stop();
    expect(existsSync(plugin.socketPath)).toBe(false);
  });
});
