// Upstream pkg/instancetype/preference/requirements (cpu.go): the vCPUs a preference requires, provided
// by the instance type when there is one, otherwise by the VM's own CPU topology counted the way the
// preferred topology lays the vCPUs out.
import type { VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../api/generated/v1beta1.js";
import { Path } from "../../../api/field.js";
import { preferredSpread, preferredTopology } from "../apply/vmi.js";
import { RequirementFailure } from "./failure.js";

export const insufficientInstancetypeCPU = (provided: number, required: number) =>
  `insufficient CPU resources of ${provided} vCPU provided by instance type, preference requires ${required} vCPU`;
export const insufficientVMCPU = (provided: number, required: number, providedAs: string) =>
  `insufficient CPU resources of ${provided} vCPU provided by VirtualMachine, preference requires ${required} vCPU provided as ${providedAs}`;
export const noVMCPU = (required: number) =>
  `no CPU resources provided by VirtualMachine, preference requires ${required} vCPU`;

const instancetypePath = Path.of("spec", "instancetype");
const cpuPath = Path.of("spec", "template", "spec", "domain", "cpu");

type CPU = NonNullable<VirtualMachineInstanceSpec["domain"]["cpu"]>;
type Dimension = "sockets" | "cores" | "threads";

// Go reads an unset uint32 as 0.
const count = (cpu: CPU, dimension: Dimension): number => cpu[dimension] ?? 0;

function requireProduct(
  cpu: CPU,
  dimensions: Dimension[],
  required: number,
  providedAs: string,
): RequirementFailure | undefined {
  const provided = dimensions.reduce((product, dimension) => product * count(cpu, dimension), 1);
  if (provided >= required) return undefined;
  return new RequirementFailure(
    dimensions.map((dimension) => cpuPath.child(dimension)),
    insufficientVMCPU(provided, required, providedAs),
  );
}

const SPREAD_DIMENSIONS: Record<string, Dimension[]> = {
  SocketsCores: ["sockets", "cores"],
  CoresThreads: ["cores", "threads"],
  SocketsCoresThreads: ["sockets", "cores", "threads"],
};

function checkSpread(
  preference: VirtualMachinePreferenceSpec,
  cpu: CPU,
  required: number,
): RequirementFailure | undefined {
  const { across } = preferredSpread(preference);
  const dimensions = SPREAD_DIMENSIONS[across];
  // An across upstream does not know provides no vCPUs and names no field.
  if (dimensions === undefined) {
    return required > 0 ? new RequirementFailure([], insufficientVMCPU(0, required, across)) : undefined;
  }
  return requireProduct(cpu, dimensions, required, across);
}

export function checkCPU(
  instancetype: VirtualMachineInstancetypeSpec | undefined,
  preference: VirtualMachinePreferenceSpec,
  vmi: VirtualMachineInstanceSpec,
): RequirementFailure | undefined {
  const required = preference.requirements?.cpu?.guest ?? 0;
  if (instancetype !== undefined) {
    const provided = instancetype.cpu.guest;
    return provided < required
      ? new RequirementFailure([instancetypePath], insufficientInstancetypeCPU(provided, required))
      : undefined;
  }
  const cpu = vmi.domain.cpu;
  if (cpu === undefined) return new RequirementFailure([cpuPath], noVMCPU(required));
  switch (preferredTopology(preference)) {
    case "preferThreads":
    case "threads":
      return requireProduct(cpu, ["threads"], required, "threads");
    case "preferCores":
    case "cores":
      return requireProduct(cpu, ["cores"], required, "cores");
    case "preferSockets":
    case "sockets":
      return requireProduct(cpu, ["sockets"], required, "sockets");
    case "preferSpread":
    case "spread":
      return checkSpread(preference, cpu, required);
    case "preferAny":
    case "any":
      return requireProduct(cpu, ["cores", "sockets", "threads"], required, "cores, sockets and threads");
    default:
      return undefined;
  }
}
