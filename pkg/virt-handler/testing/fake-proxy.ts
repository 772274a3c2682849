// The migration proxy manager for virt-handler's controller tests: listeners are records, ports are made up.
import type { ProxyManager } from "../migration-proxy/migration-proxy.js";

type UsedMethods =
  | "startTargetListener"
  | "getTargetListenerPorts"
  | "stopTargetListener"
  | "startSourceListener"
  | "stopSourceListener";

export class FakeProxy implements Pick<ProxyManager, UsedMethods> {
  readonly targets = new Map<string, readonly string[]>();
  readonly sources = new Map<
    string,
    { address: string; ports: Readonly<Record<string, number>>; baseDir: string }
  >();
  readonly stopped: string[] = [];

  async startTargetListener(key: string, unixFiles: readonly string[]) {
    this.targets.set(key, unixFiles);
  }
  getTargetListenerPorts(key: string): Record<string, number> {
    const files = this.targets.get(key);
    if (!files) return {};
    // libvirt's socket comes first (port 0), then the migration ports in order.
    return Object.fromEntries(files.map((file, i) => [String(40000 + i), i === 0 ? 0 : 49151 + i]));
  }
  async stopTargetListener(key: string) {
    this.targets.delete(key);
    this.stopped.push(`target ${key}`);
  }
  async startSourceListener(
    key: string,
    address: string,
    ports: Readonly<Record<string, number>>,
    baseDir: string,
  ) {
    this.sources.set(key, { address, ports, baseDir });
  }
  async stopSourceListener(key: string) {
    this.sources.delete(key);
    this.stopped.push(`source ${key}`);
  }
}
