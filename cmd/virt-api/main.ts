// virt-api: flags as upstream (--port, --listen, --tls-cert-file, --tls-key-file, ...), wiring and
// signals; everything else lives in pkg/virt-api.
import { parseArgs } from "node:util";
import { KubeClient } from "../../pkg/controller/client.js";
import { ClusterConfigSource } from "../../pkg/virt-config/cluster-config-source.js";
import { ApiMetrics } from "../../pkg/monitoring/metrics/virt-api/metrics.js";
import {
  DEFAULT_HANDLER_CERT_FILE,
  DEFAULT_HANDLER_KEY_FILE,
  VirtApiApp,
} from "../../pkg/virt-api/application.js";
import {
  DEFAULT_TLS_CERT_FILE,
  DEFAULT_TLS_KEY_FILE,
} from "../../pkg/certificates/bootstrap/serving-cert.js";
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
      port: { type: "string", default: "8443" },
      listen: { type: "string", default: "0.0.0.0" },
      "tls-cert-file": { type: "string", default: DEFAULT_TLS_CERT_FILE },
      "tls-key-file": { type: "string", default: DEFAULT_TLS_KEY_FILE },
      // Passed by the operator's Deployment as upstream's is: virt-handler's console port, and
      // whether only the subresource API is served (ours always serves webhooks and subresources).
      "console-server-port": { type: "string", default: "8186" },
      "subresources-only": { type: "boolean", default: false },
      // virt-api's client certificate towards virt-handler and the CA ConfigMap, as upstream names them.
      "handler-cert-file": { type: "string", default: DEFAULT_HANDLER_CERT_FILE },
      "handler-key-file": { type: "string", default: DEFAULT_HANDLER_KEY_FILE },
      "ca-configmap-name": { type: "string", default: "kubevirt-ca" },
      v: { type: "string", short: "v", default: "2" },
      kubeconfig: { type: "string" },
    },
    strict: true,
  });
  const logger = componentLogger("virt-api", values.v);
  const kubeConfig = loadKubeConfig(values.kubeconfig);
  const namespace = installNamespace();
  const metrics = new ApiMetrics();
  const app = new VirtApiApp({
    kubeConfig,
    namespace,
    metrics,
    clusterConfig: ClusterConfigSource.forNamespace(
      KubeClient.fromKubeConfig(kubeConfig, metrics.restClient),
      namespace,
      logger,
    ),
    host: values.listen,
    port: Number(values.port),
    tlsCertFile: values["tls-cert-file"],
    tlsKeyFile: values["tls-key-file"],
    consoleServerPort: Number(values["console-server-port"]),
    handlerCertFile: values["handler-cert-file"],
    handlerKeyFile: values["handler-key-file"],
    caConfigMapName: values["ca-configmap-name"],
    logger,
  });
  const { port, closed } = await app.start(shutdownSignal(logger));
  logger.info({ port }, "virt-api serving");
  await closed;
});
