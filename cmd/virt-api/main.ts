// virt-api: flags as upstream (--port, --listen, --tls-cert-file, --tls-key-file), wiring and signals;
// everything else lives in pkg/virt-api.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { VirtApiApp } from "../../pkg/virt-api/application.js";
import { DEFAULT_TLS_CERT_FILE, DEFAULT_TLS_KEY_FILE } from "../../pkg/virt-api/serving-cert.js";

const SERVICE_ACCOUNT_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
const DEFAULT_NAMESPACE = "kubevirt";

function namespace(): string {
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
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8443" },
      listen: { type: "string", default: "0.0.0.0" },
      "tls-cert-file": { type: "string", default: DEFAULT_TLS_CERT_FILE },
      "tls-key-file": { type: "string", default: DEFAULT_TLS_KEY_FILE },
      v: { type: "string", short: "v", default: "2" },
      kubeconfig: { type: "string" },
    },
    strict: true,
  });
  const logger = pino({ level: Number(values.v) >= 4 ? "debug" : "info", base: { component: "virt-api" } });
  const app = new VirtApiApp({
    kubeConfig: kubeConfig(values.kubeconfig),
    namespace: namespace(),
    host: values.listen,
    port: Number(values.port),
    tlsCertFile: values["tls-cert-file"],
    tlsKeyFile: values["tls-key-file"],
    logger,
  });
  const stop = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      logger.info({ signal }, "shutting down");
      stop.abort();
    });
  }
  const { port, closed } = await app.start(stop.signal);
  logger.info({ port }, "virt-api serving");
  await closed;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
