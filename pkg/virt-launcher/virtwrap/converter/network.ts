// Network interfaces (upstream converter/network/{configurator,builder}.go, plus the target, MAC
// and MTU that upstream's launcher adds from the pod in network/domainspec): masquerade and
// bridge bindings attach the guest NIC to the tap virt-handler already created in the pod, as a
// libvirt `ethernet` interface that libvirt must not manage.
import { createHash } from "node:crypto";
import type { Interface as VMIInterface, VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { DomainSpec, Interface } from "../api/schema.js";
import { newUserDefinedAlias } from "../api/schema.js";
import type { ConverterContext, InterfacePlumbing } from "./context.js";
import { ConversionError, positiveInteger } from "./errors.js";
import { virtioModel } from "./virtio.js";

/**
 * A stable MAC for an interface the VMI and virt-handler left without one: locally administered,
 * unicast, derived from the VMI's identity so that redefining the domain keeps it.
 */
export function generatedMAC(vmi: VirtualMachineInstance, interfaceName: string): string {
  const { namespace = "", name = "", uid = "" } = vmi.metadata ?? {};
  const digest = createHash("sha256").update(`${namespace}/${name}/${uid}/${interfaceName}`).digest();
  const bytes = [0x02, ...digest.subarray(0, 5)];
  return bytes.map((byte) => byte.toString(16).padStart(2, "0")).join(":");
}

function modelType(vmi: VirtualMachineInstance, iface: VMIInterface): string {
  const model = iface.model || "virtio";
  return model === "virtio" ? virtioModel(vmi) : model;
}

function tapInterface(
  vmi: VirtualMachineInstance,
  iface: VMIInterface,
  plumbing: InterfacePlumbing,
): Interface {
  const domainIface: Interface = {
    // A tap that exists already: libvirt attaches it and leaves it alone.
    type: "ethernet",
    target: { device: plumbing.tapDevice, managed: "no" },
    model: { type: modelType(vmi, iface) },
    mac: { mac: iface.macAddress || plumbing.mac || generatedMAC(vmi, iface.name) },
    alias: newUserDefinedAlias(iface.name),
  };
  if (plumbing.mtu !== undefined) domainIface.mtu = { size: String(plumbing.mtu) };
  if (iface.bootOrder) {
    domainIface.bootOrder = { order: positiveInteger(iface.bootOrder, `interface ${iface.name} bootOrder`) };
  }
  // Without a boot order the NIC's option ROM (PXE) is dead weight.
  else domainIface.rom = { enabled: "no" };
  if (iface.state === "down") domainIface.linkState = { state: "down" };
  return domainIface;
}

export function configureInterfaces(
  vmi: VirtualMachineInstance,
  context: ConverterContext,
  spec: DomainSpec,
): void {
  const present = (vmi.spec.domain.devices.interfaces ?? []).filter((iface) => iface.state !== "absent");
  const networks = new Set((vmi.spec.networks ?? []).map((network) => network.name));
  const interfaces: Interface[] = [];
  for (const iface of present) {
    if (!networks.has(iface.name)) throw new ConversionError(`failed to find network ${iface.name}`);
    if (!iface.masquerade && !iface.bridge) {
      throw new ConversionError(`interface ${iface.name} has no binding method`);
    }
    const plumbing = context.interfaces.get(iface.name);
    if (!plumbing) throw new ConversionError(`no tap device provided for interface ${iface.name}`);
    interfaces.push(tapInterface(vmi, iface, plumbing));
  }
  if (interfaces.length > 0) spec.devices.interfaces = interfaces;
}
