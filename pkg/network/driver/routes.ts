import { listIPv4Routes } from "./iproute.js";
import { routeFromIp } from "./nmstate/status.js";
import type { Route } from "./nmstate/types.js";
import type { NetnsExec } from "./netns-exec.js";

/** Adds the routes that are missing. Kernel routes are skipped: they follow their addresses. */
export async function ensureRoutes(exec: NetnsExec, routes: readonly Route[]): Promise<void> {
  const current = (await listIPv4Routes(exec)).flatMap(routeFromIp);
  const same = (a: Route, b: Route): boolean =>
    a.destination === b.destination &&
    a.nextHopInterface === b.nextHopInterface &&
    a.nextHopAddress === b.nextHopAddress;
  for (const route of routes) {
    if (route.protocol === "kernel" || current.some((existing) => same(existing, route))) continue;
    const via = route.nextHopAddress ? ["via", route.nextHopAddress] : [];
    await exec.change("ip", ["route", "replace", route.destination, ...via, "dev", route.nextHopInterface]);
  }
}
