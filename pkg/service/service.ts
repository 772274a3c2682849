// What every component's main shares (upstream's pkg/service): the install namespace, the client
// configuration, a logger at upstream's verbosity, and shutdown on SIGTERM/SIGINT.
import { readFileSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import { pino, type Logger } from "pino";

const SERVICE_ACCOUNT_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
export const DEFAULT_INSTALL_NAMESPACE = "kubevirt";

/** The namespace the component runs in (its service account's), `kubevirt` outside a pod. */
export function installNamespace(file = SERVICE_ACCOUNT_NAMESPACE_FILE): string {
  try {
    return readFileSync(file, "utf8").trim() || DEFAULT_INSTALL_NAMESPACE;
  } catch {
    return DEFAULT_INSTALL_NAMESPACE;
  }
}

/** `--kubeconfig` when given, else in-cluster / $KUBECONFIG / ~/.kube/config. */
export function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

/** Upstream's klog verbosity: 2 by default, debug output from 4 on. */
export function componentLogger(component: string, verbosity: string | number | undefined): Logger {
  return pino({ level: Number(verbosity ?? 2) >= 4 ? "debug" : "info", base: { component } });
}

/** Aborts on the first SIGTERM or SIGINT, so the component drains and releases what it holds. */
export function shutdownSignal(logger: Logger): AbortSignal {
  const stop = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      stop.abort();
    });
  }
  return stop.signal;
}

/** Runs a main, printing a failure as one line and exiting non-zero. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
