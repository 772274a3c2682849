// VMI → libvirt domain (upstream converter.go Convert_v1_VirtualMachineInstance_To_api_Domain and
// the domain defaults the manager applies after it). Each concern fills its part of the domain
// spec; anything the VMI asks for outside the implemented subset is refused up front.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { newMinimalDomainSpec, setDomainDefaults, vmiNamespaceKeyFunc } from "../api/defaults.js";
import type { Domain, DomainSpec } from "../api/schema.js";
import {
  configureClock,
  configureCPU,
  configureFeatures,
  configureHypervisor,
  configureMemory,
  configureMemoryHotplugNUMA,
  configureRebootPolicy,
} from "./compute.js";
import type { ConverterContext } from "./context.js";
import {
  configureBalloon,
  configureChannels,
  configureConsole,
  configureControllers,
  configureGraphics,
  configureInputs,
  configureRng,
} from "./devices.js";
import { UnsupportedError } from "./errors.js";
import { configureOS, configureSysInfo } from "./firmware.js";
import { configureInterfaces } from "./network.js";
import { configureDisks } from "./storage.js";
import { unsupportedFields } from "./subset.js";

type Configure = (vmi: VirtualMachineInstance, context: ConverterContext, spec: DomainSpec) => void;

/** In upstream's order, which is also the order the devices appear in the XML. */
const configurators: readonly Configure[] = [
  configureInterfaces,
  (_vmi, _context, spec) => configureChannels(spec),
  (vmi, _context, spec) => configureClock(vmi, spec),
  (vmi, _context, spec) => configureRng(vmi, spec),
  (vmi, _context, spec) => configureInputs(vmi, spec),
  configureBalloon,
  configureGraphics,
  configureConsole,
  (vmi, _context, spec) => configureFeatures(vmi, spec),
  configureSysInfo,
  configureOS,
  configureDisks,
  (vmi, _context, spec) => configureControllers(vmi, spec),
  (vmi, _context, spec) => configureCPU(vmi, spec),
  (vmi, _context, spec) => configureMemory(vmi, spec),
  (_vmi, _context, spec) => configureMemoryHotplugNUMA(spec),
  (vmi, _context, spec) => configureRebootPolicy(vmi, spec),
  (_vmi, context, spec) => configureHypervisor(context, spec),
];

/**
 * The libvirt domain for a (defaulted) VMI. Throws UnsupportedError naming every field outside
 * the implemented subset, and ConversionError where upstream's converter also gives up.
 */
export function convertVMIToDomain(vmi: VirtualMachineInstance, context: ConverterContext): Domain {
  const unsupported = unsupportedFields(vmi);
  if (unsupported.length > 0) throw new UnsupportedError(unsupported);
  const { name = "", namespace = "", uid = "" } = vmi.metadata ?? {};
  const spec: DomainSpec = {
    ...newMinimalDomainSpec(vmiNamespaceKeyFunc(vmi)),
    metadata: { kubeVirt: { uid } },
  };
  for (const configure of configurators) configure(vmi, context, spec);
  setDomainDefaults(spec);
  return { objectMeta: { name, namespace }, spec };
}
