// Rules for each interface's own fields (upstream pkg/network/admitter/netiface.go): name characters,
// NIC model, MAC and PCI addresses, forwarded ports and port ranges on the pod network, DHCP options.
import type {
  Interface,
  Network,
  Port,
  PortRange,
  VirtualMachineInstanceSpec,
} from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import {
  duplicateCause,
  invalidCause,
  notSupportedCause,
  requiredCause,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { isPciAddress } from "./disks.js";
import { isIPv4, isValidPortName, macAddressOctets } from "../../../../util/k8s-validation.js";

const INTERFACE_MODELS = new Set(["e1000", "e1000e", "igb", "ne2k_pci", "pcnet", "rtl8139", "virtio"]);
const INTERFACE_NAME = /^[A-Za-z0-9-_]+$/;
const MAX_PORT_RANGES = 10;
const PORT_RANGE_PROTOCOLS = ["TCP", "UDP"] as const;
const MAX_MAC_OCTETS = 6;

export function validateInterfacesFields(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
  networksByName: ReadonlyMap<string, Network>,
): StatusCause[] {
  return (spec.domain.devices.interfaces ?? []).flatMap((iface, index) => {
    const at = field.child("domain", "devices", "interfaces").index(index);
    const network = networksByName.get(iface.name);
    return [
      ...validateInterfaceName(at, iface),
      ...validateModel(at, iface),
      ...validateMacAddress(at, iface),
      ...validatePciAddress(at, iface),
      ...(network?.pod !== undefined && iface.ports !== undefined ? validatePorts(at, iface.ports) : []),
      ...validatePortRanges(at, iface, network, config),
      ...validateDHCPOptions(field, at, iface),
    ];
  });
}

function validateInterfaceName(at: Path, iface: Interface): StatusCause[] {
  if (INTERFACE_NAME.test(iface.name)) return [];
  return [
    invalidCause(
      "Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)",
      at.child("name"),
    ),
  ];
}

function validateModel(at: Path, iface: Interface): StatusCause[] {
  const model = iface.model ?? "";
  if (model === "" || INTERFACE_MODELS.has(model)) return [];
  return [
    notSupportedCause(
      `interface ${at.child("name").toString()} uses model ${model} that is not supported.`,
      at.child("model"),
    ),
  ];
}

function validateMacAddress(at: Path, iface: Interface): StatusCause[] {
  const mac = iface.macAddress ?? "";
  if (mac === "") return [];
  const octets = macAddressOctets(mac);
  const problem =
    octets === undefined
      ? `malformed MAC address (${mac})`
      : octets > MAX_MAC_OCTETS
        ? `too long MAC address (${mac})`
        : undefined;
  if (problem === undefined) return [];
  return [invalidCause(`interface ${at.child("name").toString()} has ${problem}.`, at.child("macAddress"))];
}

function validatePciAddress(at: Path, iface: Interface): StatusCause[] {
  const address = iface.pciAddress ?? "";
  if (address === "" || isPciAddress(address)) return [];
  return [
    invalidCause(
      `interface ${at.child("name").toString()} has malformed PCI address (${address}).`,
      at.child("pciAddress"),
    ),
  ];
}

function validatePorts(at: Path, ports: readonly Port[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((port, index) => {
    const name = port.name ?? "";
    if (name === "") return;
    const namePath = at.child("ports").index(index).child("name");
    if (names.has(name)) causes.push(duplicateCause(`Duplicate name of the port: ${name}`, namePath));
    if (isValidPortName(name).length > 0)
      causes.push(invalidCause(`Invalid name of the port: ${name}`, namePath));
    names.add(name);
  });
  ports.forEach((port, index) => {
    const portPath = at.child("ports").index(index);
    if (port.port === 0) causes.push(requiredCause("Port field is mandatory.", portPath.child("port")));
    if (port.port < 0 || port.port >= 65536) {
      causes.push(invalidCause("Port field must be in range 0 < x < 65536.", portPath.child("port")));
    }
    const protocol = port.protocol ?? "";
    if (protocol !== "" && protocol !== "TCP" && protocol !== "UDP") {
      causes.push(invalidCause("Unknown protocol, only TCP or UDP allowed", portPath.child("protocol")));
    }
  });
  return causes;
}

function validatePortRanges(
  at: Path,
  iface: Interface,
  network: Network | undefined,
  config: ClusterConfig,
): StatusCause[] {
  const ranges = iface.portRanges;
  if (!config.isFeatureGateEnabled(FeatureGate.PortRangesSpec)) {
    if (ranges === undefined) return [];
    return [
      invalidCause(
        "portRanges is specified on interface but the PortRangesSpec feature gate is not enabled",
        at.child("name"),
      ),
    ];
  }
  if (network?.pod === undefined || ranges === undefined) return [];
  const causes: StatusCause[] = [];
  if (iface.ports !== undefined) {
    causes.push(invalidCause("Cannot define both ports and portRanges on interface", at.child("name")));
  }
  if (iface.masquerade === undefined) {
    causes.push(invalidCause("portRanges are only supported on masquerade interfaces", at.child("name")));
  }
  causes.push(...validateRanges(at, ranges));
  return causes;
}

/** The first problem of each range, then overlaps between the valid ranges of each protocol. */
function validateRanges(at: Path, ranges: readonly PortRange[]): StatusCause[] {
  if (ranges.length > MAX_PORT_RANGES) {
    return [invalidCause("No more than 10 portRanges are allowed", at.child("portRanges"))];
  }
  const causes: StatusCause[] = [];
  const validByProtocol = new Map<string, PortRange[]>();
  ranges.forEach((range, index) => {
    const rangePath = at.child("portRanges").index(index);
    const validPort = (port: number): boolean => port > 0 && port < 65536;
    if (range.protocol !== "TCP" && range.protocol !== "UDP") {
      causes.push(invalidCause("Unknown protocol, only TCP or UDP allowed", rangePath.child("protocol")));
    } else if (!validPort(range.start)) {
      causes.push(invalidCause("Start must be a valid port number, 0 < x < 65536", rangePath.child("start")));
    } else if (!validPort(range.end)) {
      causes.push(invalidCause("End must be a valid port number, 0 < x < 65536", rangePath.child("end")));
    } else if (range.start > range.end) {
      causes.push(invalidCause("Start must be less than or equal to end", rangePath.child("start")));
    } else {
      validByProtocol.set(range.protocol, [...(validByProtocol.get(range.protocol) ?? []), range]);
    }
  });
  // Go walks a map here, in no fixed order; TCP before UDP keeps the answer stable.
  for (const protocol of PORT_RANGE_PROTOCOLS) {
    causes.push(...overlaps(at, protocol, validByProtocol.get(protocol) ?? []));
  }
  return causes;
}

function overlaps(at: Path, protocol: string, ranges: readonly PortRange[]): StatusCause[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
  return sorted.slice(1).flatMap((current, index) => {
    const previous = sorted[index];
    if (previous === undefined || current.start > previous.end) return [];
    return [
      invalidCause(
        `${protocol} portRanges [${previous.start}-${previous.end}] and [${current.start}-${current.end}] overlap`,
        at.child("portRanges"),
      ),
    ];
  });
}

/** DHCP private options are reported at the spec path itself, as upstream does. */
function validateDHCPOptions(field: Path, at: Path, iface: Interface): StatusCause[] {
  const options = iface.dhcpOptions;
  if (options === undefined) return [];
  const causes: StatusCause[] = [];
  const privateOptions = options.privateOptions ?? [];
  if (new Set(privateOptions.map((option) => option.option)).size < privateOptions.length) {
    causes.push(invalidCause("Found Duplicates: you have provided duplicate DHCPPrivateOptions", field));
  }
  for (const option of privateOptions) {
    if (option.option < 224 || option.option > 254) {
      causes.push(
        invalidCause("provided DHCPPrivateOptions are out of range, must be in range 224 to 254", field),
      );
    }
  }
  (options.ntpServers ?? []).forEach((server, index) => {
    if (isIPv4(server)) return;
    causes.push(
      invalidCause(
        "NTP servers must be a list of valid IPv4 addresses.",
        at.child("dhcpOptions", "ntpServers").index(index),
      ),
    );
  });
  return causes;
}
