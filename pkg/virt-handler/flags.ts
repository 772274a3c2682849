// virt-handler's command line, with upstream's flag names and defaults. Flags for parts not built yet
// (vsock, vmstats) are accepted so the operator's DaemonSet arguments parse. --heartbeat-interval is this
// port's own, for tests of node failure: upstream hard-codes the node heartbeat's minute (the default).
import { parseArgs } from "node:util";
import { boolFlag, intFlag, positiveDurationFlag } from "../util/flags.js";
import { parseGoDuration } from "../util/go-duration.js";
import { DEFAULT_HEARTBEAT_INTERVAL_MS } from "./heartbeat/heartbeat.js";
import { DEFAULT_MIGRATION_CN_TYPES } from "./migration-proxy/tls.js";

export interface VirtHandlerFlags {
  port: number;
  listen: string;
  hostnameOverride: string;
  podIpAddress: string;
  virtShareDir: string;
  virtPrivateDir: string;
  kubeletPodsDir: string;
  kubeletRoot: string;
  tlsCertFile: string;
  tlsKeyFile: string;
  caConfigMapName: string;
  migrationClientCertFile: string;
  migrationClientKeyFile: string;
  /** The certificate types whose CN a migration source may present (upstream --migration-cn-types). */
  migrationCnTypes: string[];
  maxDevices: number;
  /** Scrapes of /metrics at a time, and collections from one launcher at a time (--max-metric-requests). */
  maxMetricRequests: number;
  consoleServerPort: number;
  vmstatsServerPort: number;
  gracefulShutdownSeconds: number;
  domainResyncPeriodSeconds: number;
  watchdogTimeoutMs: number;
  /** The node heartbeat's period; upstream's jitter adds up to 1.2 periods more to each wait. */
  heartbeatIntervalMs: number;
  enableNodeLabeller: boolean;
  kubeconfig: string | undefined;
  verbosity: number;
}

export function parseVirtHandlerFlags(argv: readonly string[]): VirtHandlerFlags {
  const string = { type: "string" } as const;
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      port: string,
      listen: string,
      "hostname-override": string,
      "pod-ip-address": string,
      "kubevirt-share-dir": string,
      "kubevirt-private-dir": string,
      "kubelet-pods-dir": string,
      "kubelet-root": string,
      "ca-configmap-name": string,
      "migration-client-cert-file": string,
      "migration-client-key-file": string,
      "tls-cert-file": string,
      "tls-key-file": string,
      "externally-managed": string,
      "watchdog-timeout": string,
      "heartbeat-interval": string,
      "max-devices": string,
      "max-metric-requests": string,
      "console-server-port": string,
      "vmstats-server-port": string,
      "domain-resync-period-seconds": string,
      "graceful-shutdown-seconds": string,
      "enable-node-labeller": string,
      "migration-cn-types": { type: "string", multiple: true },
      "vsock-client-cert-file": string,
      "vsock-client-key-file": string,
      kubeconfig: string,
      v: { type: "string", short: "v" },
    },
  });
  return {
    port: intFlag("port", values.port, 8185),
    listen: values.listen ?? "0.0.0.0",
    hostnameOverride: values["hostname-override"] ?? "",
    podIpAddress: values["pod-ip-address"] ?? "",
    virtShareDir: values["kubevirt-share-dir"] ?? "/var/run/kubevirt",
    virtPrivateDir: values["kubevirt-private-dir"] ?? "/var/run/kubevirt-private",
    kubeletPodsDir: values["kubelet-pods-dir"] ?? "/var/lib/kubelet/pods",
    kubeletRoot: values["kubelet-root"] ?? "/var/lib/kubelet",
    tlsCertFile: values["tls-cert-file"] ?? "/etc/virt-handler/servercertificates/tls.crt",
    tlsKeyFile: values["tls-key-file"] ?? "/etc/virt-handler/servercertificates/tls.key",
    caConfigMapName: values["ca-configmap-name"] ?? "kubevirt-ca",
    migrationClientCertFile:
      values["migration-client-cert-file"] ?? "/etc/virt-handler/migrationservercertificates/tls.crt",
    migrationClientKeyFile:
      values["migration-client-key-file"] ?? "/etc/virt-handler/migrationservercertificates/tls.key",
    migrationCnTypes: values["migration-cn-types"] ?? [...DEFAULT_MIGRATION_CN_TYPES],
    maxDevices: intFlag("max-devices", values["max-devices"], 1000),
    maxMetricRequests: intFlag("max-metric-requests", values["max-metric-requests"], 3),
    consoleServerPort: intFlag("console-server-port", values["console-server-port"], 8186),
    vmstatsServerPort: intFlag("vmstats-server-port", values["vmstats-server-port"], 8187),
    gracefulShutdownSeconds: intFlag("graceful-shutdown-seconds", values["graceful-shutdown-seconds"], 300),
    domainResyncPeriodSeconds: intFlag(
      "domain-resync-period-seconds",
      values["domain-resync-period-seconds"],
      300,
    ),
    watchdogTimeoutMs: parseGoDuration(values["watchdog-timeout"] ?? "30s"),
    heartbeatIntervalMs: positiveDurationFlag(
      "heartbeat-interval",
      values["heartbeat-interval"],
      DEFAULT_HEARTBEAT_INTERVAL_MS,
    ),
    enableNodeLabeller: boolFlag("enable-node-labeller", values["enable-node-labeller"], true),
    kubeconfig: values.kubeconfig,
    verbosity: intFlag("v", values.v, 2),
  };
}
