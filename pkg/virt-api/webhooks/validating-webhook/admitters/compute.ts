// CPU and machine rules of a VMI spec (upstream vmi-create-admitter.go): CPU requests and limits,
// dedicated CPU placement and what it needs, NUMA passthrough, realtime, emulator thread isolation, CPU
// feature policies, socket hotplug bounds, the emulated machine type and the IOThreads policy.
import type { CPU, VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import {
  invalidCause,
  notSupportedCause,
  requiredCause,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { goGlobMatch } from "../../../../util/glob.js";
import { milliValue, quantityOf, resource } from "./quantities.js";

const VALID_IO_THREADS_POLICIES = ["shared", "auto", "supplementalPool"];
const VALID_CPU_FEATURE_POLICIES = new Set(["", "force", "require", "optional", "disable", "forbid"]);

/** hwutil.GetNumberOfVCPUs: cores × sockets × threads, where unset (zero) factors are skipped. */
export function numberOfVCPUs(cpu: CPU): number {
  return [cpu.cores ?? 0, cpu.sockets ?? 0, cpu.threads ?? 0].reduce(
    (product, factor) => (factor === 0 ? product : product === 0 ? factor : product * factor),
    0,
  );
}

export function validateCPURequestNotNegative(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return notNegativeCPU(field, spec, "requests");
}

export function validateCPULimitNotNegative(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return notNegativeCPU(field, spec, "limits");
}

function notNegativeCPU(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  list: "requests" | "limits",
): StatusCause[] {
  const value = resource(spec, list, "cpu");
  if (milliValue(value) >= 0n) return [];
  const at = field.child("domain", "resources", list, "cpu");
  return [invalidCause(`${at.toString()} '${value.toString()}': must be greater than or equal to 0.`, at)];
}

export function validateCPURequestDoesNotExceedLimit(
  field: Path,
  spec: VirtualMachineInstanceSpec,
): StatusCause[] {
  const requests = resource(spec, "requests", "cpu");
  const limits = resource(spec, "limits", "cpu");
  if (milliValue(limits) <= 0n || milliValue(requests) <= milliValue(limits)) return [];
  const requestsPath = field.child("domain", "resources", "requests", "cpu");
  const limitsPath = field.child("domain", "resources", "limits", "cpu");
  const message =
    `${requestsPath.toString()} '${requests.toString()}' is greater than ` +
    `${limitsPath.toString()} '${limits.toString()}'`;
  return [invalidCause(message, requestsPath)];
}

export function validateEmulatedMachine(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const machineType = spec.domain.machine?.type ?? "";
  if (machineType === "") return [];
  const supported = config.getEmulatedMachines(spec.architecture);
  if (supported.some((pattern) => goGlobMatch(pattern, machineType))) return [];
  const at = field.child("domain", "machine", "type");
  const message = `${at.toString()} is not supported: ${machineType} (allowed values: [${supported.join(" ")}])`;
  return [invalidCause(message, at)];
}

export function validateCPUFeaturePolicies(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  return (spec.domain.cpu?.features ?? []).flatMap((feature, index) => {
    const policy = feature.policy ?? "";
    if (VALID_CPU_FEATURE_POLICIES.has(policy)) return [];
    return [
      notSupportedCause(
        `CPU feature ${feature.name} uses policy ${policy} that is not supported.`,
        field.child("domain", "cpu", "features").index(index).child("policy"),
      ),
    ];
  });
}

export function validateCPUIsolatorThread(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const cpu = spec.domain.cpu;
  if (!cpu?.isolateEmulatorThread || cpu.dedicatedCpuPlacement) return [];
  return [
    invalidCause(
      "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement",
      field.child("domain", "cpu", "isolateEmulatorThread"),
    ),
  ];
}

export function validateCPUHotplug(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const cpu = spec.domain.cpu;
  const maxSockets = cpu?.maxSockets ?? 0;
  if (maxSockets === 0 || (cpu?.sockets ?? 0) <= maxSockets) return [];
  return [
    invalidCause(
      "Number of sockets in CPU topology is greater than the maximum sockets allowed",
      field.child("domain", "cpu", "sockets"),
    ),
  ];
}

export function validateNUMA(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const cpu = spec.domain.cpu;
  if (cpu?.numa?.guestMappingPassthrough === undefined) return [];
  const causes: StatusCause[] = [];
  const passthrough = field.child("domain", "cpu", "numa", "guestMappingPassthrough");
  if (!config.isFeatureGateEnabled(FeatureGate.NUMA)) {
    causes.push(
      invalidCause(
        `NUMA feature gate is not enabled in kubevirt-config, invalid entry ${passthrough.toString()}`,
        passthrough,
      ),
    );
  }
  if (!cpu.dedicatedCpuPlacement) {
    const dedicated = field.child("domain", "cpu", "dedicatedCpuPlacement").toString();
    causes.push(
      invalidCause(
        `${dedicated} must be set to true when NUMA topology strategy is set in ${passthrough.toString()}`,
        passthrough,
      ),
    );
  }
  if (spec.domain.memory?.hugepages === undefined) {
    const hugepages = field.child("domain", "memory", "hugepages").toString();
    causes.push(
      invalidCause(
        `${hugepages} must be requested when NUMA topology strategy is set in ${passthrough.toString()}`,
        passthrough,
      ),
    );
  }
  return causes;
}

export function validateRealtime(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const cpu = spec.domain.cpu;
  if (cpu?.realtime === undefined) return [];
  const causes: StatusCause[] = [];
  const realtime = field.child("domain", "cpu", "realtime").toString();
  if (!cpu.dedicatedCpuPlacement) {
    const dedicated = field.child("domain", "cpu", "dedicatedCpuPlacement");
    causes.push(
      requiredCause(`${dedicated.toString()} must be set to true when ${realtime} is used`, dedicated),
    );
  }
  if (cpu.numa?.guestMappingPassthrough === undefined) {
    const passthrough = field.child("domain", "cpu", "numa", "guestMappingPassthrough");
    causes.push(
      requiredCause(`${passthrough.toString()} must be defined when ${realtime} is used`, passthrough),
    );
  }
  return causes;
}

export function validateIOThreadsPolicy(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const policy = spec.domain.ioThreadsPolicy;
  if (policy === undefined) return [];
  const causes: StatusCause[] = [];
  if (!VALID_IO_THREADS_POLICIES.includes(policy)) {
    causes.push(
      invalidCause(`Invalid IOThreadsPolicy (${policy})`, field.child("domain", "ioThreadsPolicy")),
    );
  }
  const poolThreads = spec.domain.ioThreads?.supplementalPoolThreadCount;
  if (policy === "supplementalPool" && (poolThreads === undefined || poolThreads < 1)) {
    causes.push(
      invalidCause(
        "the number of iothreads needs to be set and positive for the dedicated policy",
        field.child("domain", "ioThreads", "count"),
      ),
    );
  }
  return causes;
}

export function validateCPUPinning(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const cpu = spec.domain.cpu;
  if (!cpu?.dedicatedCpuPlacement) return [];
  return [
    ...validateMemoryIsProvided(field, spec),
    ...validateCPUIsInteger(field, spec, "requests"),
    ...validateCPUIsInteger(field, spec, "limits"),
    ...validateMemoryRequestsEqualLimits(field, spec),
    ...dedicatedPlacementCPUCount(field, spec, cpu),
    ...validateThreadCountOnArchitecture(field, spec, cpu, config),
    ...validateThreadCountOnDedicatedCPUPlacement(field, cpu),
  ];
}

function validateMemoryIsProvided(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  if (!resource(spec, "limits", "memory").isZero() || !resource(spec, "requests", "memory").isZero())
    return [];
  const memory = spec.domain.memory;
  if (memory?.hugepages !== undefined) return [];
  if (!quantityOf(memory?.guest).isZero()) return [];
  const paths = [
    field.child("domain", "resources", "requests", "memory"),
    field.child("domain", "resources", "limits", "memory"),
    field.child("domain", "memory", "hugepages"),
    field.child("domain", "memory", "guest"),
  ].map(String);
  const message = `${paths[0]}, ${paths[1]}, ${paths[2]} or ${paths[3]} should be provided`;
  return [invalidCause(message, field.child("domain", "resources", "limits", "memory"))];
}

function validateCPUIsInteger(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  list: "requests" | "limits",
): StatusCause[] {
  const value = resource(spec, list, "cpu");
  if (value.value() <= 0n || value.value() * 1000n === milliValue(value)) return [];
  // "interger" is upstream's spelling.
  return [
    invalidCause(
      `provided resources CPU ${list} must be an interger`,
      field.child("domain", "resources", list, "cpu"),
    ),
  ];
}

function validateMemoryRequestsEqualLimits(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const requests = resource(spec, "requests", "memory").value();
  const limits = resource(spec, "limits", "memory").value();
  if (requests <= 0n || limits <= 0n || requests === limits) return [];
  const requestsPath = field.child("domain", "resources", "requests", "memory");
  const limitsPath = field.child("domain", "resources", "limits", "memory");
  return [invalidCause(`${requestsPath.toString()} must be equal to ${limitsPath.toString()}`, requestsPath)];
}

/** The CPU count of a dedicated-placement VMI must come from exactly one consistent source. */
function dedicatedPlacementCPUCount(field: Path, spec: VirtualMachineInstanceSpec, cpu: CPU): StatusCause[] {
  const causes: StatusCause[] = [];
  const requests = resource(spec, "requests", "cpu").value();
  const limits = resource(spec, "limits", "cpu").value();
  const vCPUs = BigInt(numberOfVCPUs(cpu));
  const requestsPath = field.child("domain", "resources", "requests", "cpu").toString();
  const limitsPath = field.child("domain", "resources", "limits", "cpu").toString();
  const coresPath = field.child("domain", "cpu", "cores").toString();
  const dedicated = field.child("domain", "cpu", "dedicatedCpuPlacement");
  // The trailing spaces are upstream's.
  if (requests === 0n && limits === 0n && vCPUs === 0n) {
    causes.push(
      invalidCause(
        `either ${requestsPath} or ${limitsPath} or ${coresPath} must be provided when DedicatedCPUPlacement is true `,
        dedicated,
      ),
    );
  }
  if (requests > 0n && limits > 0n && requests !== limits) {
    causes.push(
      invalidCause(
        `${requestsPath} or ${limitsPath} must be equal when DedicatedCPUPlacement is true `,
        dedicated,
      ),
    );
  }
  if ((requests > 0n || limits > 0n) && vCPUs > 0n && requests !== vCPUs && limits !== vCPUs) {
    causes.push(
      invalidCause(
        `${requestsPath} or ${limitsPath} must not be provided at the same time with ${coresPath} when DedicatedCPUPlacement is true `,
        dedicated,
      ),
    );
  }
  return causes;
}

function validateThreadCountOnArchitecture(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  cpu: CPU,
  config: ClusterConfig,
): StatusCause[] {
  const architecture = spec.architecture || config.getDefaultArchitecture();
  const threads = cpu.threads ?? 0;
  if (threads <= 1 || architecture !== "arm64") return [];
  const threadsPath = field.child("domain", "cpu", "threads").toString();
  const architecturePath = field.child("architecture");
  return [
    invalidCause(
      `threads must not be greater than 1 at ${threadsPath} (got ${threads}) when ${architecturePath.toString()} is arm64`,
      architecturePath,
    ),
  ];
}

function validateThreadCountOnDedicatedCPUPlacement(field: Path, cpu: CPU): StatusCause[] {
  const threads = cpu.threads ?? 0;
  if (threads <= 2) return [];
  const threadsPath = field.child("domain", "cpu", "threads").toString();
  return [
    invalidCause(
      `Not more than two threads must be provided at ${threadsPath} (got ${threads}) when DedicatedCPUPlacement is true`,
      field.child("domain", "cpu", "dedicatedCpuPlacement"),
    ),
  ];
}
