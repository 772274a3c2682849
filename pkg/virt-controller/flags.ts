// virt-controller's command line, with upstream's flag names. Defaults are upstream's, except the
// number of workers per controller (2 here; upstream runs 3 VM, 10 VMI, 3 replica set, 3 pool, 3 node,
// 3 migration and 3 evacuation workers). --node-heartbeat-timeout is this port's own, for tests of node
// failure: upstream hard-codes the node controller's 5 minutes, which stays the default.
import { parseArgs } from "node:util";
import { intFlag, positiveDurationFlag } from "../util/flags.js";
import { parseGoDuration } from "../util/go-duration.js";
import {
  DefaultContainerDiskDir,
  DefaultEphemeralDiskDir,
  DefaultHotplugDiskDir,
  VirtShareDir,
} from "../util/constants.js";
import type { LauncherSettings } from "./services/render-context.js";
import { DEFAULT_HEARTBEAT_TIMEOUT_MS } from "./watch/node/node.js";

export interface VirtControllerFlags {
  launcher: LauncherSettings;
  vmWorkers: number;
  vmiWorkers: number;
  rsWorkers: number;
  poolWorkers: number;
  nodeWorkers: number;
  migrationWorkers: number;
  evacuationWorkers: number;
  /** How long a node's virt-handler may stay silent before the node controller declares it unresponsive. */
  nodeHeartbeatTimeoutMs: number;
  port: number;
  bindAddress: string;
  certFile: string;
  keyFile: string;
  kubeconfig: string | undefined;
  verbosity: number;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

const DefaultPort = 8182;
const DefaultLauncherQemuTimeoutSeconds = 240;
const DefaultWorkers = 2;

export function parseVirtControllerFlags(argv: readonly string[]): VirtControllerFlags {
  const string = { type: "string" } as const;
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      "launcher-image": string,
      "exporter-image": string,
      "launcher-qemu-timeout": string,
      "image-pull-secret": string,
      "kubevirt-share-dir": string,
      "ephemeral-disk-dir": string,
      "container-disk-dir": string,
      "hotplug-disk-dir": string,
      "vm-controller-threads": string,
      "vmi-controller-threads": string,
      "rs-controller-threads": string,
      "pool-controller-threads": string,
      "node-controller-threads": string,
      "migration-controller-threads": string,
      "evacuation-controller-threads": string,
      "node-heartbeat-timeout": string,
      port: string,
      listen: string,
      "prom-cert-file": string,
      "prom-key-file": string,
      kubeconfig: string,
      "leader-elect-lease-duration": string,
      "leader-elect-renew-deadline": string,
      "leader-elect-retry-period": string,
      v: { type: "string", short: "v" },
    },
  });
  return {
    launcher: {
      launcherImage: values["launcher-image"] ?? "virt-launcher",
      launcherQemuTimeoutSeconds: intFlag(
        "launcher-qemu-timeout",
        values["launcher-qemu-timeout"],
        DefaultLauncherQemuTimeoutSeconds,
      ),
      imagePullSecret: values["image-pull-secret"] ?? "",
      virtShareDir: values["kubevirt-share-dir"] ?? VirtShareDir,
      ephemeralDiskDir: values["ephemeral-disk-dir"] ?? DefaultEphemeralDiskDir,
      containerDiskDir: values["container-disk-dir"] ?? DefaultContainerDiskDir,
      hotplugDiskDir: values["hotplug-disk-dir"] ?? DefaultHotplugDiskDir,
    },
    vmWorkers: intFlag("vm-controller-threads", values["vm-controller-threads"], DefaultWorkers),
    vmiWorkers: intFlag("vmi-controller-threads", values["vmi-controller-threads"], DefaultWorkers),
    rsWorkers: intFlag("rs-controller-threads", values["rs-controller-threads"], DefaultWorkers),
    poolWorkers: intFlag("pool-controller-threads", values["pool-controller-threads"], DefaultWorkers),
    nodeWorkers: intFlag("node-controller-threads", values["node-controller-threads"], DefaultWorkers),
    migrationWorkers: intFlag(
      "migration-controller-threads",
      values["migration-controller-threads"],
      DefaultWorkers,
    ),
    evacuationWorkers: intFlag(
      "evacuation-controller-threads",
      values["evacuation-controller-threads"],
      DefaultWorkers,
    ),
    nodeHeartbeatTimeoutMs: positiveDurationFlag(
      "node-heartbeat-timeout",
      values["node-heartbeat-timeout"],
      DEFAULT_HEARTBEAT_TIMEOUT_MS,
    ),
    port: intFlag("port", values.port, DefaultPort),
    bindAddress: values.listen ?? "0.0.0.0",
    certFile: values["prom-cert-file"] ?? "/etc/virt-controller/certificates/tls.crt",
    keyFile: values["prom-key-file"] ?? "/etc/virt-controller/certificates/tls.key",
    kubeconfig: values.kubeconfig,
    verbosity: intFlag("v", values.v, 2),
    leaseDurationMs: parseGoDuration(values["leader-elect-lease-duration"] ?? "15s"),
    renewDeadlineMs: parseGoDuration(values["leader-elect-renew-deadline"] ?? "10s"),
    retryPeriodMs: parseGoDuration(values["leader-elect-retry-period"] ?? "2s"),
  };
}
