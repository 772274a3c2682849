// Certificate lifetimes from the KubeVirt CR's spec.certificateRotateStrategy.selfSigned, with upstream's
// defaults: the CA lives 7 days, serving and client certificates 1 day, and each is renewed when 20% of
// its lifetime is left. The deprecated *RotateInterval / caOverlapInterval fields still take priority.
import type { KubeVirtSelfSignConfiguration } from "../../../api/generated/v1.js";
import { parseGoDuration } from "../../../util/go-duration.js";

export const DURATION_7D_MS = 7 * 24 * 3600 * 1000;
export const DURATION_1D_MS = 24 * 3600 * 1000;
const RENEW_FRACTION = 0.2;

const parse = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : parseGoDuration(text);

export function caDuration(config: KubeVirtSelfSignConfiguration | undefined): number {
  return parse(config?.caRotateInterval) ?? parse(config?.ca?.duration) ?? DURATION_7D_MS;
}

export function caRenewBefore(config: KubeVirtSelfSignConfiguration | undefined): number {
  return (
    parse(config?.caOverlapInterval) ?? parse(config?.ca?.renewBefore) ?? caDuration(config) * RENEW_FRACTION
  );
}

export function certDuration(config: KubeVirtSelfSignConfiguration | undefined): number {
  return parse(config?.certRotateInterval) ?? parse(config?.server?.duration) ?? DURATION_1D_MS;
}

export function certRenewBefore(config: KubeVirtSelfSignConfiguration | undefined): number {
  return parse(config?.server?.renewBefore) ?? certDuration(config) * RENEW_FRACTION;
}
