// virt-operator: flags, configuration, wiring and signals; everything else lives in pkg/virt-operator.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { VirtOperatorApp } from "../../pkg/virt-operator/application.js";
import { OPERATOR_WEBHOOK_PORT } from "../../pkg/virt-operator/resource/generate/components/deployments.js";

const SERVICE_ACCOUNT_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
const DEFAULT_NAMESPACE = "kubevirt";

function operatorNamespace(): string {
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

/** Upstream's klog verbosity: 2 by default, debug output from 4 on. */
function logLevel(verbosity: number): string {
  return verbosity >= 4 ? "debug" : "info";
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8186" },
      listen: { type: "string", default: "0.0.0.0" },
      v: { type: "string", short: "v", default: "2" },
      kubeconfig: { type: "string" },
      "client-qps": { type: "string" },
      "client-burst": { type: "string" },
      "dump-install-strategy": { type: "boolean", default: false },
    },
    strict: true,
  });
  const logger = pino({ level: logLevel(Number(values.v)), base: { component: "virt-operator" } });
  if (values["dump-install-strategy"]) {
    logger.error(
      "--dump-install-strategy is not supported: this operator generates its install strategy in-process",
    );
    process.exitCode = 1;
    return;
  }
  const app = new VirtOperatorApp({
    kubeConfig: kubeConfig(values.kubeconfig),
    namespace: operatorNamespace(),
    env: process.env,
    host: values.listen,
    port: Number(values.port),
    webhookPort: OPERATOR_WEBHOOK_PORT,
    identity: hostname(),
    logger,
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
