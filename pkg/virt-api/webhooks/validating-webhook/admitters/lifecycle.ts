// Lifecycle rules (upstream vmi-create-admitter.go and vms-admitter.go): the start strategy, the eviction
// strategy, readiness/liveness probes, and for VMs the run strategy versus the deprecated `running` flag
// and the bounds live updates need.
import type { Probe, VirtualMachineInstanceSpec, VirtualMachineSpec } from "../../../../api/generated/v1.js";
import { validateLiveUpdateMemory } from "../../../../defaults/hotplug.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { invalidCause, requiredCause, type Path, type StatusCause } from "../../../../api/causes.js";
import { quantityOf } from "./quantities.js";

const EVICTION_STRATEGIES = new Set(["LiveMigrate", "LiveMigrateIfPossible", "None", "External"]);
const RUN_STRATEGIES = new Set(["Halted", "Manual", "Always", "RerunOnFailure", "Once"]);
export const RunStrategyWaitAsReceiver = "WaitAsReceiver";

export function validateStartStrategy(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const strategy = spec.startStrategy;
  if (strategy === undefined) return [];
  const at = field.child("startStrategy");
  if (strategy !== "Paused") {
    return [invalidCause(`${at.toString()} is set with an unrecognized option: ${strategy}`, at)];
  }
  if (spec.livenessProbe === undefined) return [];
  // The missing space after the full stop is upstream's.
  const message = `either ${at.toString()} or ${field.child("livenessProbe").toString()} should be provided.Pausing VMI with LivenessProbe is not supported`;
  return [invalidCause(message, at)];
}

/** Upstream's validateLiveMigration: the eviction strategy in force must be a known one. */
export function validateEvictionStrategy(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const strategy = spec.evictionStrategy ?? config.getEvictionStrategy();
  if (strategy === undefined || EVICTION_STRATEGIES.has(strategy)) return [];
  const at = field.child("evictionStrategy");
  // Upstream prints the VMI's own value here.
  return [
    invalidCause(`${at.toString()} is set with an unrecognized option: ${spec.evictionStrategy ?? ""}`, at),
  ];
}

export function validateProbe(field: Path, probe: Probe | undefined): StatusCause[] {
  if (probe === undefined) return [];
  const handlers = [probe.httpGet, probe.tcpSocket, probe.exec, probe.guestAgentPing].filter(
    (handler) => handler !== undefined,
  ).length;
  const causes: StatusCause[] = [];
  if (handlers > 1)
    causes.push(invalidCause(`${field.toString()} must have exactly one probe type set`, field));
  if (handlers < 1) {
    const names = ["tcpSocket", "exec", "httpGet"].map((name) => field.child(name).toString());
    causes.push(
      requiredCause(
        `either ${names[0]}, ${names[1]} or ${names[2]} must be set if a ${field.toString()} is specified`,
        field,
      ),
    );
  }
  return causes;
}

/** HTTP and TCP probes reach the guest through the pod network. */
export function validateProbesNeedPodNetwork(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  if ((spec.networks ?? []).some((network) => network.pod !== undefined)) return [];
  const causes: StatusCause[] = [];
  for (const [name, probe] of [
    ["readinessProbe", spec.readinessProbe],
    ["livenessProbe", spec.livenessProbe],
  ] as const) {
    for (const handler of ["httpGet", "tcpSocket"] as const) {
      if (probe?.[handler] === undefined) continue;
      const at = field.child(name, handler);
      causes.push(invalidCause(`${at.toString()} is only allowed if the Pod Network is attached`, at));
    }
  }
  return causes;
}

export function validateRunStrategy(
  field: Path,
  spec: VirtualMachineSpec,
  config: ClusterConfig,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const running = field.child("running");
  if (spec.running !== undefined && spec.runStrategy !== undefined) {
    causes.push(
      invalidCause(
        "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead",
        running,
      ),
    );
  }
  if (spec.running === undefined && spec.runStrategy === undefined) {
    causes.push(invalidCause("RunStrategy must be specified", running));
  }
  const strategy = spec.runStrategy;
  if (strategy === undefined) return causes;
  const at = field.child("runStrategy");
  if (strategy === RunStrategyWaitAsReceiver) {
    // Only a decentralized live migration target may wait for its state to arrive.
    if (!config.isFeatureGateEnabled(FeatureGate.DecentralizedLiveMigration)) {
      causes.push(
        invalidCause(
          `Invalid RunStrategy (${strategy}), ${FeatureGate.DecentralizedLiveMigration} feature gate is not enabled in kubevirt resource`,
          at,
        ),
      );
    }
  } else if (!RUN_STRATEGIES.has(strategy)) {
    causes.push(invalidCause(`Invalid RunStrategy (${strategy})`, at));
  }
  return causes;
}

export function validateLiveUpdateFeatures(
  field: Path,
  spec: VirtualMachineSpec,
  config: ClusterConfig,
): StatusCause[] {
  if (!config.isVMRolloutStrategyLiveUpdate()) return [];
  const templateSpec = spec.template.spec;
  if (templateSpec === undefined) return [];
  const causes: StatusCause[] = [];
  const cpu = templateSpec.domain.cpu;
  if (
    cpu !== undefined &&
    (cpu.sockets ?? 0) !== 0 &&
    (cpu.maxSockets ?? 0) !== 0 &&
    (cpu.sockets ?? 0) > (cpu.maxSockets ?? 0)
  ) {
    causes.push(
      invalidCause(
        "Number of sockets in CPU topology is greater than the maximum sockets allowed",
        field.child("template", "spec", "domain", "cpu", "sockets"),
      ),
    );
  }
  const maxGuest = templateSpec.domain.memory?.maxGuest;
  if (maxGuest !== undefined) {
    const problem = validateLiveUpdateMemory(templateSpec, quantityOf(maxGuest));
    if (problem !== undefined) {
      causes.push(invalidCause(problem, field.child("template", "spec", "domain", "memory", "guest")));
    }
  }
  return causes;
}
