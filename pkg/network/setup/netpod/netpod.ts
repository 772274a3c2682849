import { isDeepStrictEqual } from "node:util";
import type {
  Interface as VMIInterface,
  Network,
  VirtualMachineInstanceNetworkInterface,
} from "../../../api/generated/v1.js";
import type { Logger } from "../../../controller/log.js";
import type { DHCPConfig } from "../../cache/dhcpconfig.js";
import { dhcpInterfaceCache } from "../../cache/dhcpconfig.js";
import type { DiscoveredPodInterface, PodIfaceCacheData } from "../../cache/podinterface.js";
import { PodIfaceState, podInterfaceCache } from "../../cache/podinterface.js";
import type { NetnsExec } from "../../driver/netns-exec.js";
import { applySpec } from "../../driver/nmstate/spec.js";
import { readStatus } from "../../driver/nmstate/status.js";
import type { Interface, Spec, Status, TapDevice } from "../../driver/nmstate/types.js";
import { ARP_REPLY_MODE_1 } from "../../driver/nmstate/types.js";
import { masqueradeAddresses } from "../../link/address.js";
import { generateBridgeName, generateNewBridgedVmiInterfaceName } from "../../link/names.js";
import { bridgeBindingDhcpConfig, bridgeBindingSpec } from "./bridge.js";
import { podInterfaceFromStatus } from "./discover.js";
import { firstIPv4GlobalUnicast } from "./ipaddress.js";
import { setupMasqueradeNat } from "./masquerade/masquerade.js";
import { masqueradeBindingSpec, masqueradeDhcpConfig } from "./masquerade-binding.js";
import type { InterfacePlan } from "./plan.js";
import { planInterfaces } from "./plan.js";
import { teardownInterface } from "./teardown.js";

// virt-handler's preparation of a VMI's pod network (upstream pkg/network/setup/netpod): discover the
// pod interfaces and cache what the launcher needs, compose the desired links, apply them, then the
// masquerade NAT. Idempotent: a second setup finds everything in place and changes nothing.

export interface MasqueradeOptions {
  istioEnabled?: boolean;
  legacyMigrationPorts?: boolean;
  portRangesSpecGateEnabled?: boolean;
}

export interface NetPodConfig {
  exec: NetnsExec;
  vmiUID: string;
  vmiInterfaces: readonly VMIInterface[];
  vmiNetworks: readonly Network[];
  vmiInterfaceStatuses?: readonly VirtualMachineInstanceNetworkInterface[];
  /** uid and gid of the taps and the launcher's cache files: the launcher's user (107 unprivileged). */
  ownerId: number;
  /** The launcher's root filesystem as seen from here (`/proc/<pid>/root`). */
  launcherRootFs: string;
  /** The launcher's private dir inside its root, symlinks resolved; default /var/run/kubevirt-private. */
  launcherPrivateDir?: string;
  /** virt-handler's private directory, home of the pod interface cache. */
  privateDir: string;
  /** Queues per virtio tap when network multi-queue is on; 0 for single-queue taps. */
  queuesCapacity?: number;
  masquerade?: MasqueradeOptions;
  log: Logger;
}

interface PreparedInterface {
  plan: InterfacePlan;
  cached: PodIfaceCacheData;
}

export class NetPod {
  private plans: InterfacePlan[];

  constructor(private readonly config: NetPodConfig) {
    this.plans = planInterfaces(config.vmiInterfaces, config.vmiNetworks, config.vmiInterfaceStatuses);
  }

  /** Plans again with the pod's links in view: ordinal secondary names (net1, ...) show there. */
  private replan(status: Status): void {
    const { vmiInterfaces, vmiNetworks, vmiInterfaceStatuses } = this.config;
    const linkNames = status.interfaces.map((iface) => iface.name);
    this.plans = planInterfaces(vmiInterfaces, vmiNetworks, vmiInterfaceStatuses, linkNames);
  }

  async setup(): Promise<void> {
    if (this.plans.length === 0) return;
    const status = await readStatus(this.config.exec);
    this.replan(status);
    const prepared: PreparedInterface[] = [];
    for (const plan of this.plans) prepared.push(await this.discover(plan, status));
    try {
      await applySpec(this.config.exec, this.composeDesiredSpec(prepared));
      for (const entry of prepared) await this.finish(entry);
    } catch (error) {
      this.config.log.error({ err: error }, "failed to configure pod network");
      throw error;
    }
  }

  /** Undoes the setup: the pod interfaces as CNI made them, no KubeVirt link, NAT or cache left. */
  async teardown(): Promise<void> {
    if (this.plans.length === 0) return;
    this.replan(await readStatus(this.config.exec));
    for (const plan of [...this.plans].reverse()) {
      const cache = this.podCache(plan);
      const cached = await cache.read();
      await teardownInterface(this.config.exec, plan, cached);
      await this.dhcpCache(plan).delete();
      await cache.delete();
    }
  }

  /** Caches the pod interface as found (or as found by an earlier run) and the launcher's config. */
  private async discover(plan: InterfacePlan, status: Status): Promise<PreparedInterface> {
    const cache = this.podCache(plan);
    const previous = await cache.read();
    const discovered = previous?.discovered ?? discoverUnprepared(status, plan);
    const podIP = firstIPv4GlobalUnicast(discovered.ipv4)?.ip;
    const cached: PodIfaceCacheData = {
      ...previous,
      iface: plan.vmiIface,
      ...(podIP ? { podIP, podIPs: [podIP] } : {}),
      networkState: Math.max(previous?.networkState ?? PodIfaceState.Pending, PodIfaceState.Started),
      discovered,
      linuxStackBefore: previous?.linuxStackBefore ?? {
        arpIgnore: status.linuxStack.ipv4.arpIgnore ?? 0,
        forwarding: status.linuxStack.ipv4.forwarding ?? false,
      },
    };
    await writeIfChanged(cache, previous, cached);
    const dhcpCache = this.dhcpCache(plan);
    await writeIfChanged(dhcpCache, await dhcpCache.read(), this.dhcpConfig(plan, cached));
    return { plan, cached };
  }

  private dhcpConfig(plan: InterfacePlan, cached: PodIfaceCacheData): DHCPConfig {
    const discovered = mustBeDiscovered(cached);
    if (plan.binding === "masquerade")
      return masqueradeDhcpConfig(plan, discovered, plan.vmiIface, plan.network);
    const status = this.config.vmiInterfaceStatuses?.find(
      (candidate) => candidate.name === plan.vmiIface.name,
    );
    return bridgeBindingDhcpConfig(plan, discovered, plan.vmiIface, status);
  }

  private composeDesiredSpec(prepared: readonly PreparedInterface[]): Spec {
    const spec: Spec = { interfaces: [], linuxStack: { ipv4: {} } };
    for (const { plan, cached } of prepared) {
      const discovered = mustBeDiscovered(cached);
      const hasIPv4 = firstIPv4GlobalUnicast(discovered.ipv4) !== undefined;
      let links: Interface[];
      if (plan.binding === "bridge") {
        links = bridgeBindingSpec(plan, discovered, this.tapDevice(plan));
        // The pod IP moves to the placeholder: the pod must not answer ARP for it on the bridge.
        if (hasIPv4) spec.linuxStack.ipv4.arpIgnore = ARP_REPLY_MODE_1;
      } else {
        links = masqueradeBindingSpec(plan, discovered, plan.network, this.tapDevice(plan));
        if (hasIPv4) spec.linuxStack.ipv4.forwarding = true;
      }
      spec.interfaces.push(...links);
    }
    return spec;
  }

  private tapDevice(plan: InterfacePlan): TapDevice {
    const model = plan.vmiIface.model;
    const queues = !model || model === "virtio" ? (this.config.queuesCapacity ?? 0) : 0;
    return { queues, uid: this.config.ownerId, gid: this.config.ownerId };
  }

  /** The masquerade NAT (upstream applies it outside nmstate too), then the Finished mark. */
  private async finish({ plan, cached }: PreparedInterface): Promise<void> {
    const discovered = mustBeDiscovered(cached);
    const podIP = firstIPv4GlobalUnicast(discovered.ipv4)?.ip;
    let natDigest = cached.natDigest;
    if (plan.binding === "masquerade" && podIP && this.isFirstMasquerade(plan)) {
      const { gateway, vm } = masqueradeAddresses(plan.network.pod?.vmNetworkCIDR);
      const input = {
        podIfaceName: plan.podIfaceName,
        bridgeName: generateBridgeName(plan.podIfaceName),
        gatewayIP: gateway.ip,
        guestIP: vm.ip,
        podIP,
        ports: plan.vmiIface.ports,
        portRanges: plan.vmiIface.portRanges,
        ...this.config.masquerade,
      };
      natDigest = await setupMasqueradeNat(this.config.exec, input, cached.natDigest);
    }
    const finished: PodIfaceCacheData = {
      ...cached,
      networkState: PodIfaceState.Finished,
      ...(natDigest ? { natDigest } : {}),
    };
    await writeIfChanged(this.podCache(plan), cached, finished);
  }

  /** Upstream NATs only the VMI's first masquerade interface. */
  private isFirstMasquerade(plan: InterfacePlan): boolean {
    return this.plans.find((candidate) => candidate.binding === "masquerade") === plan;
  }

  private dhcpCache(plan: InterfacePlan) {
    const { launcherRootFs, ownerId, launcherPrivateDir } = this.config;
    return dhcpInterfaceCache(launcherRootFs, plan.podIfaceName, ownerId, launcherPrivateDir);
  }

  private podCache(plan: InterfacePlan) {
    return podInterfaceCache(this.config.privateDir, this.config.vmiUID, plan.vmiIface.name);
  }
}

/** The pod interface as CNI left it; refused when an earlier setup, whose cache is gone, changed it. */
function discoverUnprepared(status: Status, plan: InterfacePlan): DiscoveredPodInterface {
  const renamed = generateNewBridgedVmiInterfaceName(plan.podIfaceName);
  if (status.interfaces.some((iface) => iface.name === renamed)) {
    throw new Error(
      `pod link (${plan.podIfaceName}) was already prepared (${renamed} exists) but its cache is missing`,
    );
  }
  return podInterfaceFromStatus(status, plan.podIfaceName);
}

function mustBeDiscovered(cached: PodIfaceCacheData): DiscoveredPodInterface {
  if (!cached.discovered) throw new Error("the pod interface was not discovered");
  return cached.discovered;
}

async function writeIfChanged<T>(
  file: { write(document: T): Promise<void> },
  previous: T | undefined,
  next: T,
): Promise<void> {
  if (
    previous === undefined ||
    !isDeepStrictEqual(JSON.parse(JSON.stringify(previous)), JSON.parse(JSON.stringify(next)))
  ) {
    await file.write(next);
  }
}
