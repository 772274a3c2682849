// virt-operator: flags, configuration, wiring and signals; everything else lives in pkg/virt-operator.
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { VirtOperatorApp } from "../../pkg/virt-operator/application.js";
import { OPERATOR_WEBHOOK_PORT } from "../../pkg/virt-operator/resource/generate/components/deployments.js";
import {
  componentLogger,
  installNamespace,
  loadKubeConfig,
  runMain,
  shutdownSignal,
} from "../../pkg/service/service.js";

runMain(async () => {
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
  const logger = componentLogger("virt-operator", values.v);
  if (values["dump-install-strategy"]) {
    logger.error(
      "--dump-install-strategy is not supported: this operator generates its install strategy in-process",
    );
    process.exitCode = 1;
    return;
  }
  const app = new VirtOperatorApp({
    kubeConfig: loadKubeConfig(values.kubeconfig),
    namespace: installNamespace(),
    env: process.env,
    host: values.listen,
    port: Number(values.port),
    webhookPort: OPERATOR_WEBHOOK_PORT,
    identity: hostname(),
    logger,
  });
  await app.run(shutdownSignal(logger));
});
