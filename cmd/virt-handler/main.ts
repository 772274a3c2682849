// virt-handler: flags, configuration, wiring and signals; everything else lives in pkg/virt-handler.
import { hostname } from "node:os";
import { KubeClient } from "../../pkg/controller/client.js";
import { HandlerMetrics } from "../../pkg/monitoring/metrics/virt-handler/metrics.js";
import {
  componentLogger,
  installNamespace,
  loadKubeConfig,
  runMain,
  shutdownSignal,
} from "../../pkg/service/service.js";
import { ClusterConfigSource } from "../../pkg/virt-config/cluster-config-source.js";
import { VirtHandlerApp } from "../../pkg/virt-handler/application.js";
import { parseVirtHandlerFlags } from "../../pkg/virt-handler/flags.js";

runMain(async () => {
  const flags = parseVirtHandlerFlags(process.argv.slice(2));
  const logger = componentLogger("virt-handler", flags.verbosity);
  const metrics = new HandlerMetrics(logger);
  const client = KubeClient.fromKubeConfig(loadKubeConfig(flags.kubeconfig), metrics.restClient);
  const namespace = installNamespace();
  const app = new VirtHandlerApp({
    client,
    metrics,
    maxMetricRequests: flags.maxMetricRequests,
    clusterConfig: ClusterConfigSource.forNamespace(client, namespace, logger),
    // Upstream falls back to the machine's hostname when the DaemonSet does not pass the node name.
    host: flags.hostnameOverride || hostname(),
    kubeletRoot: flags.kubeletRoot,
    maxDevices: flags.maxDevices,
    heartbeatIntervalMs: flags.heartbeatIntervalMs,
    enableNodeLabeller: flags.enableNodeLabeller,
    virtShareDir: flags.virtShareDir,
    virtPrivateDir: flags.virtPrivateDir,
    logger,
    http: {
      bindAddress: flags.listen,
      port: flags.port,
      certFile: flags.tlsCertFile,
      keyFile: flags.tlsKeyFile,
    },
    console: {
      bindAddress: flags.listen,
      port: flags.consoleServerPort,
      certFile: flags.tlsCertFile,
      keyFile: flags.tlsKeyFile,
      namespace,
      caConfigMapName: flags.caConfigMapName,
    },
    migration: {
      ipAddress: flags.podIpAddress,
      serverCertFile: flags.tlsCertFile,
      serverKeyFile: flags.tlsKeyFile,
      clientCertFile: flags.migrationClientCertFile,
      clientKeyFile: flags.migrationClientKeyFile,
      commonNameTypes: flags.migrationCnTypes,
    },
  });
  await app.run(shutdownSignal(logger));
});
