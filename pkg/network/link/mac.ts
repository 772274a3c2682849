// MAC addresses (upstream pkg/network/link/mac.go).

/** The masquerade bridge's fixed MAC; guests must not use it. */
export const STATIC_MASQUERADE_BRIDGE_MAC = "02:00:00:00:00:00";

/** Lower-case and colon-separated, as the kernel prints it: the VMI spec also allows DE-AD-00-00-BE-AF. */
export function normalizeMacAddress(mac: string): string {
  return mac.replace(/-/g, ":").toLowerCase();
}
