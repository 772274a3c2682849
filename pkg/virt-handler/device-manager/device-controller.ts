import { existsSync } from "node:fs";
import path from "node:path";
import { Backoff, type Clock, type Logger } from "../../controller/index.js";
import { GenericDevicePlugin } from "./generic-device-plugin.js";

// Runs virt-handler's device plugins and keeps them registered with kubelet, like upstream's
// DeviceController: a plugin that fails to start is retried with backoff, and one whose socket vanished
// (kubelet restarted and wiped its plugin directory) is started and registered again.

export interface PermanentDevice {
  name: string;
  path: string;
  /** tun is always served (/dev/net/tun is in every container runtime); the others only when present. */
  always: boolean;
}

export const PERMANENT_DEVICES: readonly PermanentDevice[] = [
  { name: "tun", path: "/dev/net/tun", always: true },
  { name: "kvm", path: "/dev/kvm", always: false },
  { name: "vhost-net", path: "/dev/vhost-net", always: false },
];

export interface DeviceControllerOptions {
  pluginDir: string;
  deviceRoot: string;
  maxDevices: number;
  permissions: string;
  logger: Logger;
  clock: Clock;
  devices?: readonly PermanentDevice[];
  /** How often a running plugin's socket is checked. */
  resyncIntervalMs?: number;
}

export class DeviceController {
  readonly plugins: GenericDevicePlugin[];

  constructor(private readonly opts: DeviceControllerOptions) {
    const wanted = (opts.devices ?? PERMANENT_DEVICES).filter(
      (device) => device.always || existsSync(path.join(opts.deviceRoot, device.path)),
    );
    this.plugins = wanted.map(
      (device) =>
        new GenericDevicePlugin({
          deviceName: device.name,
          devicePath: device.path,
          maxDevices: opts.maxDevices,
          permissions: opts.permissions,
          pluginDir: opts.pluginDir,
          deviceRoot: opts.deviceRoot,
          logger: opts.logger,
        }),
    );
  }

  /** Upstream's Initialized(): every device plugin is registered with kubelet. */
  initialized(): boolean {
    return this.plugins.every((plugin) => plugin.initialized);
  }

  /** Keeps every plugin running until the signal aborts, then stops them. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all(this.plugins.map((plugin) => this.keepRunning(plugin, signal)));
    await Promise.all(this.plugins.map((plugin) => plugin.stop()));
  }

  private async keepRunning(plugin: GenericDevicePlugin, signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.opts;
    const backoff = new Backoff(1_000, 60_000);
    while (!signal.aborted) {
      if (!plugin.initialized || plugin.socketGone()) {
        try {
          await plugin.start();
          backoff.reset();
        } catch (error) {
          logger.error({ err: error, resource: plugin.resourceName }, "Error starting device plugin");
          await clock.sleep(backoff.next(), signal);
          continue;
        }
      }
      await clock.sleep(this.opts.resyncIntervalMs ?? 5_000, signal);
    }
  }
}
