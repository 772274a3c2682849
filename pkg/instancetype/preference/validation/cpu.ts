// Upstream pkg/instancetype/preference/validation: the topologies a preference may name, and whether an
// instance type's vCPUs divide the way a spread preference asks.
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../api/generated/v1beta1.js";
import { Path } from "../../../api/field.js";
import { Conflict } from "../../conflict/conflicts.js";
import { preferredSpread, preferredTopology } from "../apply/vmi.js";

const SUPPORTED_TOPOLOGIES = [
  "preferSockets",
  "preferCores",
  "preferThreads",
  "preferSpread",
  "preferAny",
  "sockets",
  "cores",
  "threads",
  "spread",
  "any",
];

export const isPreferredTopologySupported = (topology: string): boolean =>
  SUPPORTED_TOPOLOGIES.includes(topology);

const guestPath = Path.of("instancetype", "spec", "cpu", "guest");

export function checkSpreadCPUTopology(
  instancetype: VirtualMachineInstancetypeSpec | undefined,
  preference: VirtualMachinePreferenceSpec | undefined,
): Conflict | undefined {
  const topology = preferredTopology(preference);
  if (instancetype === undefined || (topology !== "spread" && topology !== "preferSpread")) return undefined;
  const { ratio, across } = preferredSpread(preference ?? {});
  const guest = instancetype.cpu.guest;
  const threadsPerCore = 2;
  switch (across) {
    case "SocketsCores":
      if (guest % ratio > 0) {
        return new Conflict(
          guestPath,
          `${guest} vCPUs provided by the instance type are not divisible by the ` +
            `Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of ${ratio} provided by the preference`,
        );
      }
      return undefined;
    case "CoresThreads":
      if (guest % ratio > 0) {
        return new Conflict(
          guestPath,
          `${guest} vCPUs provided by the instance type are not divisible by the number of threads per core ${ratio}`,
        );
      }
      return undefined;
    case "SocketsCoresThreads":
      if (guest % threadsPerCore > 0 || Math.trunc(guest / threadsPerCore) % ratio > 0) {
        return new Conflict(
          guestPath,
          `${guest} vCPUs provided by the instance type are not divisible by the number of threads per core ` +
            `${threadsPerCore} and Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of ${ratio}`,
        );
      }
      return undefined;
    default:
      return undefined;
  }
}
