// Upstream's VirtualMachine.RunStrategy() (kubevirt.io/api/core/v1): the deprecated `running` maps to
// Always/Halted; neither set means Halted; both set is an error. Shared by virt-api and virtctl.
import type { VirtualMachine } from "./generated/v1.js";

export function runStrategyOf(
  vm: VirtualMachine,
): { ok: true; value: string } | { ok: false; message: string } {
  const { running, runStrategy } = vm.spec;
  if (running != null && runStrategy != null) {
    return { ok: false, message: "running and runstrategy are mutually exclusive" };
  }
  if (running != null) return { ok: true, value: running ? "Always" : "Halted" };
  return { ok: true, value: runStrategy ?? "Halted" };
}
