// Istio's sidecar ports, which a masquerade VM must not receive (upstream pkg/network/istio).

export const INJECT_SIDECAR_ANNOTATION = "sidecar.istio.io/inject";

const ENVOY_ADMIN_PORT = 15000;
const ENVOY_OUTBOUND_PORT = 15001;
const ENVOY_DEBUG_PORT = 15004;
const ENVOY_INBOUND_PORT = 15006;
const ENVOY_TUNNEL_PORT = 15008;
const ENVOY_SECURE_NETWORK_PORT = 15009;
const ENVOY_MERGED_PROMETHEUS_TELEMETRY_PORT = 15020;
const ENVOY_HEALTH_CHECK_PORT = 15021;
const ENVOY_DNS_PORT = 15053;
const ENVOY_PROMETHEUS_TELEMETRY_PORT = 15090;
const SSH_PORT = 22;

/** Ports the sidecar itself listens on. */
export function reservedPorts(): number[] {
  return [
    ENVOY_ADMIN_PORT,
    ENVOY_OUTBOUND_PORT,
    ENVOY_DEBUG_PORT,
    ENVOY_INBOUND_PORT,
    ENVOY_TUNNEL_PORT,
    ENVOY_SECURE_NETWORK_PORT,
    ENVOY_MERGED_PROMETHEUS_TELEMETRY_PORT,
    ENVOY_HEALTH_CHECK_PORT,
    ENVOY_DNS_PORT,
    ENVOY_PROMETHEUS_TELEMETRY_PORT,
  ];
}

/** Ports forwarded straight to the VM, bypassing the proxy. */
export function nonProxiedPorts(): number[] {
  return [SSH_PORT];
}

/** The source address the sidecar uses for traffic it forwards into the pod. */
export const ISTIO_LOOPBACK_ADDRESS = "127.0.0.6";

export function proxyInjectionEnabled(annotations: Record<string, string> | undefined): boolean {
  return annotations?.[INJECT_SIDECAR_ANNOTATION]?.toLowerCase() === "true";
}
