// virt-controller: flags, configuration, wiring and signals; everything else lives in pkg/virt-controller.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { KubeClient } from "../../pkg/controller/client.js";
import { VirtControllerApp } from "../../pkg/virt-controller/application.js";
import { parseVirtControllerFlags } from "../../pkg/virt-controller/flags.js";

const SERVICE_ACCOUNT_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
const DEFAULT_NAMESPACE = "kubevirt";

/** The namespace KubeVirt is installed in: the one this Pod runs in. */
function installNamespace(): string {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, "utf8").trim() || DEFAULT_NAMESPACE;
  } catch {
    return DEFAULT_NAMESPACE;
  }
}

function kubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

async function main(): Promise<void> {
  const flags = parseVirtControllerFlags(process.argv.slice(2));
  // Upstream's klog verbosity: 2 by default, debug output from 4 on.
  const logger = pino({
    level: flags.verbosity >= 4 ? "debug" : "info",
    base: { component: "virt-controller" },
  });
  const app = new VirtControllerApp({
    client: KubeClient.fromKubeConfig(kubeConfig(flags.kubeconfig)),
    namespace: installNamespace(),
    identity: process.env["POD_NAME"] || hostname(),
    launcher: flags.launcher,
    vmWorkers: flags.vmWorkers,
    vmiWorkers: flags.vmiWorkers,
    logger,
    http: {
      bindAddress: flags.bindAddress,
      port: flags.port,
      certFile: flags.certFile,
      keyFile: flags.keyFile,
    },
    leaderElection: {
      leaseDurationMs: flags.leaseDurationMs,
      renewDeadlineMs: flags.renewDeadlineMs,
      retryPeriodMs: flags.retryPeriodMs,
    },
  });
  const stop = new AbortController();
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    process.once(sig, () => {
      logger.info({ signal: sig }, "shutting down");
      stop.abort();
    });
  }
  await app.run(stop.signal);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
