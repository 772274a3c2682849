// virt-controller: flags, configuration, wiring and signals; everything else lives in pkg/virt-controller.
import { hostname } from "node:os";
import { KubeClient } from "../../pkg/controller/client.js";
import { ControllerMetrics } from "../../pkg/monitoring/metrics/virt-controller/metrics.js";
import {
  componentLogger,
  installNamespace,
  loadKubeConfig,
  runMain,
  shutdownSignal,
} from "../../pkg/service/service.js";
import { ClusterConfigSource } from "../../pkg/virt-config/cluster-config-source.js";
import { VirtControllerApp } from "../../pkg/virt-controller/watch/application.js";
import { parseVirtControllerFlags } from "../../pkg/virt-controller/flags.js";

runMain(async () => {
  const flags = parseVirtControllerFlags(process.argv.slice(2));
  const logger = componentLogger("virt-controller", flags.verbosity);
  const metrics = new ControllerMetrics(logger);
  const client = KubeClient.fromKubeConfig(loadKubeConfig(flags.kubeconfig), metrics.restClient);
  const namespace = installNamespace();
  const app = new VirtControllerApp({
    client,
    metrics,
    namespace,
    clusterConfig: ClusterConfigSource.forNamespace(client, namespace, logger),
    identity: process.env["POD_NAME"] || hostname(),
    launcher: flags.launcher,
    vmWorkers: flags.vmWorkers,
    vmiWorkers: flags.vmiWorkers,
    rsWorkers: flags.rsWorkers,
    poolWorkers: flags.poolWorkers,
    nodeWorkers: flags.nodeWorkers,
    migrationWorkers: flags.migrationWorkers,
    evacuationWorkers: flags.evacuationWorkers,
    nodeHeartbeatTimeoutMs: flags.nodeHeartbeatTimeoutMs,
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
  await app.run(shutdownSignal(logger));
});
