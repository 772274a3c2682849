// Memory rules of a VMI spec (upstream vmi-create-admitter.go): requests and limits not negative, requests
// at least 1M and not above limits, guest memory within limits, hugepages fitting the memory size, and a
// VMI asking for some memory at all.
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { Quantity, QuantityParseError } from "../../../../defaults/quantity.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import { invalidCause, requiredCause, type Path, type StatusCause } from "../../../../api/causes.js";
import { quantityOf, resource } from "./quantities.js";

const MINIMUM_MEMORY_REQUEST = Quantity.parse("1M");

const mustBePositive = (at: Path, value: Quantity): string =>
  `${at.toString()} '${value.toString()}': must be greater than or equal to 0.`;

export function validateMemoryRequestsNegativeOrNull(
  field: Path,
  spec: VirtualMachineInstanceSpec,
): StatusCause[] {
  const at = field.child("domain", "resources", "requests", "memory");
  const requests = resource(spec, "requests", "memory");
  if (requests.value() < 0n) return [invalidCause(mustBePositive(at, requests), at)];
  if (requests.value() > 0n && requests.compare(MINIMUM_MEMORY_REQUEST) < 0) {
    return [
      invalidCause(`${at.toString()} '${requests.toString()}': must be greater than or equal to 1M.`, at),
    ];
  }
  return [];
}

export function validateMemoryLimitsNegativeOrNull(
  field: Path,
  spec: VirtualMachineInstanceSpec,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const limitsPath = field.child("domain", "resources", "limits", "memory");
  const requestsPath = field.child("domain", "resources", "requests", "memory");
  const limits = resource(spec, "limits", "memory");
  const requests = resource(spec, "requests", "memory");
  if (limits.value() < 0n) causes.push(invalidCause(mustBePositive(limitsPath, limits), limitsPath));
  if (limits.value() > 0n && requests.value() > limits.value()) {
    const message =
      `${requestsPath.toString()} '${requests.toString()}' is greater than ` +
      `${limitsPath.toString()} '${limits.toString()}'`;
    causes.push(invalidCause(message, requestsPath));
  }
  return causes;
}

/** Why a hugepage size does not parse (apimachinery's ErrFormatWrong / ErrSuffix text), if it does not. */
function pageSizeProblem(pageSize: string): string | undefined {
  try {
    Quantity.parse(pageSize);
    return undefined;
  } catch (error) {
    if (error instanceof QuantityParseError) return error.message;
    throw error;
  }
}

export function validateHugepagesMemoryRequests(
  field: Path,
  spec: VirtualMachineInstanceSpec,
): StatusCause[] {
  const hugepages = spec.domain.memory?.hugepages;
  if (hugepages === undefined) return [];
  const pageSizePath = field.child("domain", "memory", "hugepages", "pageSize");
  const requestsPath = field.child("domain", "resources", "requests", "memory");
  const pageSizeText = hugepages.pageSize ?? "";
  const problem = pageSizeProblem(pageSizeText);
  if (problem !== undefined) {
    return [invalidCause(`${pageSizePath.toString()} '${pageSizeText}': ${problem}`, pageSizePath)];
  }
  const pageSize = Quantity.parse(pageSizeText).value();
  let vmMemory = resource(spec, "requests", "memory").value();
  if (vmMemory === 0n) vmMemory = quantityOf(spec.domain.memory?.guest).value();
  if (vmMemory === 0n) vmMemory = resource(spec, "limits", "memory").value();
  const requests = resource(spec, "requests", "memory").toString();
  const compared = `${requestsPath.toString()} '${requests}'`;
  const page = `${pageSizePath.toString()} '${pageSizeText}'`;
  if (vmMemory !== 0n && vmMemory < pageSize) {
    return [invalidCause(`${compared} must be equal to or larger than page size ${page}`, requestsPath)];
  }
  // Go divides by the page size here; a zero or negative size is reported instead of crashing.
  if (pageSize <= 0n || vmMemory % pageSize !== 0n) {
    return [invalidCause(`${compared} is not a multiple of the page size ${page}`, requestsPath)];
  }
  return [];
}

export function validateGuestMemoryLimit(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  // With live updates the guest may grow up to maxGuest, so the limit is not binding.
  if (config.isVMRolloutStrategyLiveUpdate()) return [];
  const guestRaw = spec.domain.memory?.guest;
  if (guestRaw === undefined) return [];
  const guest = quantityOf(guestRaw);
  const limits = resource(spec, "limits", "memory");
  if (limits.value() === 0n || limits.value() >= guest.value()) return [];
  const guestPath = field.child("domain", "memory", "guest");
  const limitsPath = field.child("domain", "resources", "limits", "memory");
  const message =
    `${guestPath.toString()} '${guest.toString()}' must be equal to or less than the memory limit ` +
    `${limitsPath.toString()} '${limits.toString()}'`;
  return [invalidCause(message, guestPath)];
}

export function validateReservedOverheadMemlock(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  if (spec.domain.memory?.reservedOverhead === undefined) return [];
  if (config.isFeatureGateEnabled(FeatureGate.ReservedOverheadMemlock)) return [];
  return [
    invalidCause(
      "Reserved overhead memlock feature gate is not enabled in kubevirt-config",
      field.child("domain", "memory", "reservedOverhead"),
    ),
  ];
}

/** Only for VMIs (after defaults), never for templates: some memory must be asked for. */
export function validateMemoryIsRequested(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  if (resource(spec, "requests", "memory").value() !== 0n) return [];
  const memory = spec.domain.memory;
  if (memory?.guest !== undefined || memory?.hugepages !== undefined) return [];
  const guest = field.child("domain", "memory", "guest").toString();
  const pageSize = field.child("domain", "memory", "hugepages", "pageSize").toString();
  const requests = field.child("domain", "resources", "requests", "memory").toString();
  // Upstream names no field for this cause.
  return [
    requiredCause(
      `no memory requested, at least one of '${guest}', '${pageSize}' or '${requests}' must be set`,
    ),
  ];
}
