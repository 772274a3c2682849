// The pod network a VMI gets when it asks for no network at all (upstream
// pkg/network/vmispec/defaults.go and the api's DefaultPodNetwork / Default*NetworkInterface).
import type { Interface, Network, VirtualMachineInstanceSpec } from "../api/generated/v1.js";
import type { ClusterConfig } from "../virt-config/cluster-config.js";

export const DefaultNetworkName = "default";

export function defaultPodNetwork(): Network {
  return { name: DefaultNetworkName, pod: {} };
}

export function defaultBridgeNetworkInterface(): Interface {
  return { name: DefaultNetworkName, bridge: {} };
}

export function defaultMasqueradeNetworkInterface(): Interface {
  return { name: DefaultNetworkName, masquerade: {} };
}

/** Adds the default pod network and interface; returns upstream's error text when the config forbids it. */
export function setDefaultNetworkInterface(
  config: ClusterConfig,
  spec: VirtualMachineInstanceSpec,
): string | undefined {
  const devices = (spec.domain.devices ??= {});
  if (devices.autoattachPodInterface === false) return undefined;
  if ((spec.networks?.length ?? 0) !== 0 || (devices.interfaces?.length ?? 0) !== 0) return undefined;

  switch (config.getDefaultNetworkInterface()) {
    case "bridge":
      if (!config.isBridgeInterfaceOnPodNetworkEnabled())
        return "bridge interface is not enabled in kubevirt-config";
      devices.interfaces = [defaultBridgeNetworkInterface()];
      break;
    case "masquerade":
      devices.interfaces = [defaultMasqueradeNetworkInterface()];
      break;
    case "slirp":
      return "slirp interface is deprecated as of v1.3";
  }
  spec.networks = [defaultPodNetwork()];
  return undefined;
}
