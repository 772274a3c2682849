// Network rules of a VMI spec (upstream pkg/network/admitter): network sources, at most one pod network,
// unique network and interface names, interfaces and networks pairing up, exactly one binding per
// interface and what each binding needs, interface states, and the bindings KubeVirt discontinued.
import type { Interface, Network, VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { goQuote } from "../../../../api/field.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import {
  duplicateCause,
  invalidCause,
  requiredCause,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { validateInterfacesFields } from "./network-interfaces.js";

/** The MAC address of the bridge inside the pod that masquerade uses. */
export const StaticMasqueradeBridgeMAC = "02:00:00:00:00:00";

const INTERFACE_STATES = new Set(["", "absent", "down", "up"]);

const interfacesOf = (spec: VirtualMachineInstanceSpec): Interface[] => spec.domain.devices.interfaces ?? [];
const networksOf = (spec: VirtualMachineInstanceSpec): Network[] => spec.networks ?? [];
const interfacePath = (field: Path, index: number): Path =>
  field.child("domain", "devices", "interfaces").index(index);

/** Networks by name; for a repeated name the last one wins, like Go's map indexing. */
function networksByName(spec: VirtualMachineInstanceSpec): Map<string, Network> {
  return new Map(networksOf(spec).map((network) => [network.name, network] as const));
}

/** Upstream's netadmitter Validator.Validate, in its order. */
export function validateNetworks(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  return [
    ...validateSinglePodNetwork(field, spec),
    ...validateSingleNetworkSource(field, spec),
    ...validateMultusNetworkSource(field, spec),
    ...validateInterfaceStates(field, spec),
    ...validateInterfaceBindings(field, spec, config),
    ...validateNetworkNamesUnique(field, spec),
    ...validateNetworkDevicesWithDRA(field, spec, config),
    ...validateNetworksHaveInterfaces(field, spec),
    ...validateInterfaceNamesUnique(field, spec),
    ...validateInterfacesHaveNetworks(field, spec),
    ...validateInterfacesFields(field, spec, config, networksByName(spec)),
  ];
}

/** Upstream's Validator.ValidateCreation: bindings that were removed from KubeVirt. */
export function validateDiscontinuedBindings(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return interfacesOf(spec).flatMap((iface, index) => {
    const at = interfacePath(field, index);
    const causes: StatusCause[] = [];
    if (iface.slirp !== undefined) {
      causes.push(
        invalidCause("Slirp interface support has been discontinued since v1.3", at.child("slirp")),
      );
    }
    if (iface.passt !== undefined) {
      causes.push(invalidCause("Passt network binding has been discontinued since v1.3", at.child("passt")));
    }
    if (iface.macvtap !== undefined) {
      causes.push(
        invalidCause("Macvtap network binding has been discontinued since v1.3", at.child("macvtap")),
      );
    }
    return causes;
  });
}

function validateSinglePodNetwork(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const podNetworks = networksOf(spec).filter((network) => network.pod !== undefined).length;
  const multusDefaults = networksOf(spec).filter((network) => network.multus?.default === true).length;
  if (podNetworks > 1) {
    // Upstream names `spec.interfaces`, which does not exist; kept as KubeVirt reports it.
    const at = field.child("interfaces");
    causes.push(
      duplicateCause(`more than one interface is connected to a pod network in ${at.toString()}`, at),
    );
  }
  if (multusDefaults > 1) {
    causes.push(invalidCause("Multus CNI should only have one default network", field.child("networks")));
  }
  if (podNetworks > 0 && multusDefaults > 0) {
    causes.push(
      invalidCause(
        "Pod network cannot be defined when Multus default network is defined",
        field.child("networks"),
      ),
    );
  }
  return causes;
}

function validateSingleNetworkSource(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return networksOf(spec).flatMap((network, index) => {
    const sources = [network.pod, network.multus, network.resourceClaim].filter(
      (s) => s !== undefined,
    ).length;
    const at = field.child("networks").index(index);
    if (sources === 0) return [requiredCause("should have a network type", at)];
    if (sources > 1) return [requiredCause("should have only one network type", at)];
    return [];
  });
}

function validateMultusNetworkSource(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  // Upstream stops at the first such network.
  const index = networksOf(spec).findIndex(
    (network) => network.multus !== undefined && network.multus.networkName === "",
  );
  if (index < 0) return [];
  return [
    requiredCause("CNI delegating plugin must have a networkName", field.child("networks").index(index)),
  ];
}

function validateInterfaceStates(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const defaultNetwork = networksOf(spec).find((n) => n.pod !== undefined || n.multus?.default === true);
  return interfacesOf(spec).flatMap((iface, index) => {
    const state = iface.state ?? "";
    const at = interfacePath(field, index).child("state");
    const causes: StatusCause[] = [];
    if (!INTERFACE_STATES.has(state)) {
      causes.push(invalidCause(`logical ${iface.name} interface state value is unsupported: ${state}`, at));
    }
    const quoted = goQuote(iface.name);
    if (iface.sriov !== undefined && (state === "down" || state === "up")) {
      causes.push(
        invalidCause(`${quoted} interface's state "${state}" is not supported for SR-IOV NICs`, at),
      );
    }
    if (state === "absent" && iface.bridge === undefined) {
      causes.push(
        invalidCause(`${quoted} interface's state "absent" is supported only for bridge binding`, at),
      );
    }
    if (state === "absent" && defaultNetwork?.name === iface.name) {
      causes.push(
        invalidCause(`${quoted} interface's state "absent" is not supported on default networks`, at),
      );
    }
    return causes;
  });
}

function countBindings(iface: Interface): number {
  return [iface.bridge, iface.masquerade, iface.sriov, iface.passtBinding, iface.binding].filter(
    (binding) => binding !== undefined,
  ).length;
}

function validateInterfaceBindings(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const networks = networksByName(spec);
  return interfacesOf(spec).flatMap((iface, index) => {
    const at = interfacePath(field, index);
    const onPodNetwork = networks.get(iface.name)?.pod !== undefined;
    const causes: StatusCause[] = [];
    if (countBindings(iface) !== 1) {
      causes.push(
        invalidCause(
          `logical ${iface.name} interface must have exactly one binding method or binding plugin`,
          at,
        ),
      );
    }
    if (iface.masquerade !== undefined && !onPodNetwork) {
      causes.push(invalidCause("Masquerade interface only implemented with pod network", at.child("name")));
    }
    if (iface.masquerade !== undefined && iface.macAddress === StaticMasqueradeBridgeMAC) {
      causes.push(
        invalidCause(
          "The requested MAC address is reserved for the in-pod bridge. Please choose another one.",
          at.child("macAddress"),
        ),
      );
    }
    if (iface.bridge !== undefined && onPodNetwork && !config.isBridgeInterfaceOnPodNetworkEnabled()) {
      causes.push(
        invalidCause(
          "Bridge on pod network configuration is not enabled under kubevirt-config",
          at.child("name"),
        ),
      );
    }
    if (iface.passtBinding !== undefined && !config.isFeatureGateEnabled(FeatureGate.PasstBinding)) {
      causes.push(invalidCause("PasstBinding feature gate is not enabled", at.child("name")));
    }
    if (iface.passtBinding !== undefined && !onPodNetwork) {
      causes.push(invalidCause("PasstBinding interface only implemented with pod network", at.child("name")));
    }
    return causes;
  });
}

function validateNetworkNamesUnique(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const seen = new Set<string>();
  return networksOf(spec).flatMap((network, index) => {
    const repeated = seen.has(network.name);
    seen.add(network.name);
    if (!repeated) return [];
    return [
      duplicateCause(
        `Network with name ${goQuote(network.name)} already exists, every network must have a unique name`,
        field.child("networks").index(index).child("name"),
      ),
    ];
  });
}

function validateNetworkDevicesWithDRA(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const networks = networksOf(spec);
  if (!networks.some((network) => network.resourceClaim !== undefined)) return [];
  if (!config.isFeatureGateEnabled(FeatureGate.NetworkDevicesWithDRA)) {
    return [
      invalidCause(
        "vmi.spec.networks contains DRA networks but NetworkDevicesWithDRA feature gate is not enabled",
        field.child("networks"),
      ),
    ];
  }
  if (networks.some((network) => network.multus !== undefined)) {
    return [
      invalidCause(
        "mixing Multus and DRA resourceClaim networks in the same VMI is not supported",
        field.child("networks"),
      ),
    ];
  }
  // The claim/request checks of DRA networks are not ported: kubevirt-ts refuses DRA networks anyway.
  return [];
}

function validateNetworksHaveInterfaces(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const interfaceNames = new Set(interfacesOf(spec).map((iface) => iface.name));
  return networksOf(spec).flatMap((network, index) => {
    if (interfaceNames.has(network.name)) return [];
    const at = field.child("networks").index(index).child("name");
    return [requiredCause(`${at.toString()} '${network.name}' not found.`, at)];
  });
}

function validateInterfaceNamesUnique(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const seen = new Set<string>();
  return interfacesOf(spec).flatMap((iface, index) => {
    const repeated = seen.has(iface.name);
    seen.add(iface.name);
    if (!repeated) return [];
    return [
      duplicateCause(
        "Only one interface can be connected to one specific network",
        interfacePath(field, index).child("name"),
      ),
    ];
  });
}

function validateInterfacesHaveNetworks(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const networks = networksByName(spec);
  return interfacesOf(spec).flatMap((iface, index) => {
    if (networks.has(iface.name)) return [];
    const at = interfacePath(field, index).child("name");
    return [invalidCause(`${at.toString()} '${iface.name}' not found.`, at)];
  });
}
