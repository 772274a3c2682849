// The launcher's half of the pod network (upstream netsetup SetupPodNetworkPhase2): virt-handler
// already made the bridge and tap in the pod and cached what it learned in
// `<private dir>/vif-cache-<pod interface>.json`; the launcher plugs the guest NIC into that tap
// and answers the guest's DHCP from inside the pod's network namespace.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Interface, Network, VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Logger } from "../../../controller/log.js";
import { JsonCacheFile } from "../../../network/cache/cache.js";
import type { DHCPConfig } from "../../../network/cache/dhcpconfig.js";
import { DHCPConfigSchema } from "../../../network/cache/dhcpconfig.js";
import { ensureDhcpServerStarted, generateDhcpServerConfig } from "../../../network/dhcp/configurator.js";
import type { DhcpServer } from "../../../network/dhcp/server.js";
import type { DhcpServerConfig } from "../../../network/dhcp/server-config.js";
import { sanitizeHostname } from "../../../network/dns/resolveconf.js";
import { generateTapDeviceName } from "../../../network/link/names.js";
import { hashedPodInterfaceName, ordinalPodInterfaceName } from "../../../network/namescheme/namescheme.js";
import type { DomainSpec } from "../api/schema.js";
import type { InterfacePlumbing } from "../converter/context.js";

export interface PodInterface {
  iface: Interface;
  network: Network;
  podInterfaceName: string;
  /** What virt-handler cached; undefined when it wrote nothing (yet). */
  cached: DHCPConfig | undefined;
}

function boundInterfaces(vmi: VirtualMachineInstance): { iface: Interface; network: Network }[] {
  const networks = new Map((vmi.spec.networks ?? []).map((network) => [network.name, network]));
  return (vmi.spec.domain.devices.interfaces ?? []).flatMap((iface) => {
    const network = networks.get(iface.name);
    const bound = iface.state !== "absent" && (iface.masquerade || iface.bridge);
    return network && bound ? [{ iface, network }] : [];
  });
}

export function interfaceCacheFile(privateDir: string, podInterfaceName: string): JsonCacheFile<DHCPConfig> {
  return new JsonCacheFile(join(privateDir, `vif-cache-${podInterfaceName}.json`), DHCPConfigSchema);
}

/**
 * Every bound interface of the VMI with the config virt-handler cached for it. Like upstream's link
 * discovery, the hashed name (or the primary's as virt-controller reported it) is tried first, then the
 * ordinal one (net1, ...) of pods made by older releases: the first that virt-handler cached wins.
 */
export async function readPodInterfaces(
  vmi: VirtualMachineInstance,
  privateDir: string,
): Promise<PodInterface[]> {
  const networks = vmi.spec.networks ?? [];
  const statuses = vmi.status?.interfaces ?? [];
  const found: PodInterface[] = [];
  for (const { iface, network } of boundInterfaces(vmi)) {
    const candidates = [
      hashedPodInterfaceName(network, statuses),
      ordinalPodInterfaceName(network.name, networks),
    ].filter((name) => name !== "");
    let entry: PodInterface = { iface, network, podInterfaceName: candidates[0] ?? "", cached: undefined };
    for (const podInterfaceName of candidates) {
      const cached = await interfaceCacheFile(privateDir, podInterfaceName).read();
      if (cached) {
        entry = { iface, network, podInterfaceName, cached };
        break;
      }
    }
    found.push(entry);
  }
  return found;
}

/** The converter's view: which tap each interface uses, with the MAC and MTU virt-handler chose. */
export function interfacePlumbing(interfaces: readonly PodInterface[]): Map<string, InterfacePlumbing> {
  return new Map(
    interfaces.map(({ iface, network, podInterfaceName, cached }) => [
      iface.name,
      {
        tapDevice: cached?.tapName ?? generateTapDeviceName(podInterfaceName, network),
        ...(cached?.mac ? { mac: cached.mac } : {}),
        ...(cached?.mtu !== undefined ? { mtu: cached.mtu } : {}),
      },
    ]),
  );
}

export interface DhcpStarter {
  privateDir: string;
  log: Logger;
  /** The pod's resolv.conf (DNS servers and search domains for the guest). */
  resolvConfPath?: string;
  start: (config: DhcpServerConfig) => Promise<DhcpServer>;
}

/** Starts one DHCP server per interface that has an IPv4 to hand out; returns the servers started. */
export async function startDhcpServers(
  vmi: VirtualMachineInstance,
  spec: DomainSpec,
  interfaces: readonly PodInterface[],
  starter: DhcpStarter,
): Promise<DhcpServer[]> {
  const resolvConf = await readFile(starter.resolvConfPath ?? "/etc/resolv.conf", "utf8").catch(() => "");
  const servers: DhcpServer[] = [];
  for (const { iface, podInterfaceName, cached } of interfaces) {
    if (!cached) continue;
    const domainMAC = spec.devices.interfaces?.find((candidate) => candidate.alias?.name === iface.name)?.mac
      ?.mac;
    const config = generateDhcpServerConfig(cached, {
      resolvConf,
      hostname: sanitizeHostname(vmi.metadata?.name ?? "", vmi.spec.hostname),
      subdomain: vmi.spec.subdomain,
      dhcpOptions: iface.dhcpOptions,
      domainMAC,
    });
    await ensureDhcpServerStarted(
      podInterfaceName,
      config,
      async (serverConfig) => {
        servers.push(await starter.start(serverConfig));
        starter.log.info({ interface: podInterfaceName, ip: serverConfig.clientIP }, "DHCP server started");
      },
      starter.privateDir,
    );
  }
  return servers;
}
