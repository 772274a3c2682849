// Small questions about a VMI that the manager asks (upstream v1.VirtualMachineInstance methods).
import type { VirtualMachineInstance } from "../../api/generated/v1.js";

/** Upstream v1.DefaultGracePeriodSeconds. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 30;

export const isRunning = (vmi: VirtualMachineInstance): boolean => vmi.status?.phase === "Running";

export const isFinal = (vmi: VirtualMachineInstance): boolean =>
  vmi.status?.phase === "Failed" || vmi.status?.phase === "Succeeded";

export const shouldStartPaused = (vmi: VirtualMachineInstance): boolean =>
  vmi.spec.startStrategy === "Paused";

export const gracePeriodSeconds = (vmi: VirtualMachineInstance): number =>
  vmi.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;

export const agentConnected = (vmi: VirtualMachineInstance): boolean =>
  (vmi.status?.conditions ?? []).some(
    (condition) => condition.type === "AgentConnected" && condition.status === "True",
  );

export const acpiDisabled = (vmi: VirtualMachineInstance): boolean =>
  vmi.spec.domain.features?.acpi?.enabled === false;

/** libvirt's domain name for the VMI: `<namespace>_<name>`. */
export const domainName = (vmi: VirtualMachineInstance): string =>
  `${vmi.metadata?.namespace ?? ""}_${vmi.metadata?.name ?? ""}`;
