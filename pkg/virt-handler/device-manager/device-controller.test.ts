import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, systemClock } from "../../controller/index.js";
import { DeviceController } from "./device-controller.js";
import { until } from "./testing/until.js";
import { FakeKubelet } from "./testing/fake-kubelet.js";

const resources = (kubelet: FakeKubelet) =>
  kubelet.registrations.map((r) => (r as { resource_name: string }).resource_name).sort();

describe("DeviceController", () => {
  let dir: string;
  let pluginDir: string;
  let deviceRoot: string;
  let kubelet: FakeKubelet;
  let stop: AbortController;
  let running: Promise<void> | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "dc-"));
    pluginDir = path.join(dir, "device-plugins");
    deviceRoot = path.join(dir, "host");
    await mkdir(pluginDir, { recursive: true });
    await mkdir(path.join(deviceRoot, "dev"), { recursive: true });
    kubelet = new FakeKubelet(pluginDir);
    await kubelet.start();
    stop = new AbortController();
  });

  afterEach(async () => {
    stop.abort();
    await running;
    await kubelet.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const controller = () =>
    new DeviceController({
      pluginDir,
      deviceRoot,
      maxDevices: 10,
      permissions: "rw",
      logger: silentLogger,
      clock: systemClock,
      resyncIntervalMs: 20,
    });

  it("serves tun always, kvm and vhost-net only when their device nodes exist", async () => {
    expect(controller().plugins.map((p) => p.resourceName)).toEqual(["devices.kubevirt.io/tun"]);
    await writeFile(path.join(deviceRoot, "dev/kvm"), "");
    await writeFile(path.join(deviceRoot, "dev/vhost-net"), "");
    expect(controller().plugins.map((p) => p.resourceName)).toEqual([
      "devices.kubevirt.io/tun",
      "devices.kubevirt.io/kvm",
      "devices.kubevirt.io/vhost-net",
    ]);
  });

  it("is initialized once every plugin registered, and registers again after kubelet wiped the sockets", async () => {
    await writeFile(path.join(deviceRoot, "dev/kvm"), "");
    const devices = controller();
    expect(devices.initialized()).toBe(false);
    running = devices.run(stop.signal);
    await until(() => devices.initialized());
    expect(resources(kubelet)).toEqual(["devices.kubevirt.io/kvm", "devices.kubevirt.io/tun"]);

    await rm(path.join(pluginDir, "kubevirt-tun.sock"));
    await until(() => kubelet.registrations.length === 3);
    expect(resources(kubelet)).toEqual([
      "devices.kubevirt.io/kvm",
      "devices.kubevirt.io/tun",
      "devices.kubevirt.io/tun",
    ]);
  });

  it("retries a plugin until kubelet listens", async () => {
    await kubelet.stop();
    await rm(path.join(pluginDir, "kubelet.sock"), { force: true });
    const devices = new DeviceController({
      pluginDir,
      deviceRoot,
      maxDevices: 1,
      permissions: "rw",
      logger: silentLogger,
      // Backoff sleeps are cut short so the retry comes at once.
      clock: { now: () => Date.now(), sleep: (ms, signal) => systemClock.sleep(Math.min(ms, 20), signal) },
    });
    running = devices.run(stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(devices.initialized()).toBe(false);
    kubelet = new FakeKubelet(pluginDir);
    await kubelet.start();
    await until(() => devices.initialized());
    expect(resources(kubelet)).toEqual(["devices.kubevirt.io/tun"]);
  });
});
