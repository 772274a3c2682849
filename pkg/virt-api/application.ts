// virt-api's process: read the front proxy's settings and the serving certificate, wire the webhooks
// and the subresource API to the cluster, serve HTTPS until the signal aborts, then drain.
import type { KubeConfig } from "@kubernetes/client-node";
import type { FastifyBaseLogger } from "fastify";
import { KubeClient } from "../controller/client.js";
import { KubeConfigTransport } from "../controller/rest.js";
import { ClusterConfigSource } from "../virt-config/cluster-config-source.js";
import {
  apiserverVersion,
  consoleBackend,
  lifecycleClient,
  migrationClient,
  podEvictionClient,
  presetLister,
  loadRequestHeaderConfig,
  subjectAccessReviewer,
} from "./cluster.js";
import { ConsoleProxy } from "./rest/console.js";
import { PortForwardProxy } from "./rest/portforward.js";
import { ScreenshotProxy } from "./rest/vnc.js";
import { HandlerPutProxy } from "./rest/handler-put.js";
import { VMI_HANDLER_VERBS } from "./rest/vmi-lifecycle.js";
import { GuestInfoProxy } from "./rest/guest-info.js";
import { ExpandSpecApp } from "./rest/expand.js";
import { clientInferSources, InferHandler } from "../instancetype/infer/handler.js";
import { Expander } from "../instancetype/expand/expand.js";
import { clientFinders } from "../instancetype/find/client.js";
import { vmiApplier } from "../instancetype/apply/vmi.js";
import { InstancetypeVMAdmitter } from "../instancetype/webhooks/vm/admitter.js";
import { KubeApiHealth } from "./rest/healthz.js";
import { SubresourceApp } from "./rest/subresource-app.js";
import { MigrateApp } from "./rest/migrate.js";
import { VolumeApp } from "./rest/volume-app.js";
import { createVirtApiServer } from "./server.js";
import { readServingTLS, reloadOnChange } from "../certificates/bootstrap/serving-cert.js";
import { kubeVirtServiceAccounts } from "./webhooks/routes.js";
import { MetricsEndpoint } from "../monitoring/metrics/common/endpoint.js";
import { ApiMetrics } from "../monitoring/metrics/virt-api/metrics.js";

export const DEFAULT_CONSOLE_SERVER_PORT = 8186;
export const DEFAULT_HANDLER_CERT_FILE = "/etc/virt-handler/clientcertificates/tls.crt";
export const DEFAULT_HANDLER_KEY_FILE = "/etc/virt-handler/clientcertificates/tls.key";

export interface VirtApiAppOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  host: string;
  port: number;
  tlsCertFile: string;
  tlsKeyFile: string;
  logger: FastifyBaseLogger;
  /** virt-handler's console server port (--console-server-port). */
  consoleServerPort?: number;
  /** virt-api's client certificate towards virt-handler (--handler-cert-file / --handler-key-file). */
  handlerCertFile?: string;
  handlerKeyFile?: string;
  /** The KubeVirt CA ConfigMap (--ca-configmap-name). */
  caConfigMapName?: string;
  /** The live configuration the webhooks read; default: the KubeVirt CR of `namespace`. */
  clusterConfig?: ClusterConfigSource;
  /** Served on /metrics; its rest client observes this app's transport. Absent: a fresh registry. */
  metrics?: ApiMetrics;
}

export class VirtApiApp {
  constructor(private readonly options: VirtApiAppOptions) {}

  /** Serves until `signal` aborts; resolves with the bound port once listening (for tests, port 0). */
  async start(signal: AbortSignal): Promise<{ port: number; closed: Promise<void> }> {
    const { options } = this;
    const metrics = options.metrics ?? new ApiMetrics();
    const transport = new KubeConfigTransport(options.kubeConfig, metrics.restClient);
    const requestHeader = await loadRequestHeaderConfig(transport);
    const config =
      options.clusterConfig ??
      ClusterConfigSource.forNamespace(new KubeClient(transport), options.namespace, options.logger);
    // As upstream, the webhooks answer only once the KubeVirt CR has been read, never with a guess.
    const watching = config.run(signal);
    if (!(await config.waitForSync(signal))) {
      await watching;
      return { port: options.port, closed: Promise.resolve() };
    }
    const handlerBackend = consoleBackend(transport, {
      namespace: options.namespace,
      caConfigMapName: options.caConfigMapName,
      handlerCertFile: options.handlerCertFile ?? DEFAULT_HANDLER_CERT_FILE,
      handlerKeyFile: options.handlerKeyFile ?? DEFAULT_HANDLER_KEY_FILE,
    });
    const consoleServerPort = options.consoleServerPort ?? DEFAULT_CONSOLE_SERVER_PORT;
    const lifecycle = lifecycleClient(transport);
    const migrations = migrationClient(transport);
    const logError = (message: string, error?: unknown) => options.logger.error({ err: error }, message);
    const finders = clientFinders(new KubeClient(transport));
    const expander = new Expander(
      () => config.current(),
      finders.instancetype,
      finders.preference,
      vmiApplier,
    );
    const consoleProxy = new ConsoleProxy(handlerBackend, { consoleServerPort, logError });
    const server = createVirtApiServer({
      tls: readServingTLS(options.tlsCertFile, options.tlsKeyFile),
      requestHeader: () => requestHeader,
      reviewer: subjectAccessReviewer(transport),
      webhooks: {
        clusterConfig: () => config.current(),
        kubeVirtServiceAccounts: kubeVirtServiceAccounts(options.namespace),
        podEvictionClient: podEvictionClient(transport),
        presets: presetLister(transport),
        readVMI: (namespace, name) => lifecycle.getVMI(namespace, name),
        migrationClient: migrations,
        warn: (message) => options.logger.warn(message),
        instancetypes: new InstancetypeVMAdmitter(
          finders.instancetype,
          finders.preference,
          (message) => options.logger.warn(message),
          new InferHandler(clientInferSources(new KubeClient(transport))),
        ),
      },
      subresources: new SubresourceApp(lifecycle),
      migrate: new MigrateApp(migrations),
      health: new KubeApiHealth(apiserverVersion(transport), () => config.configResourceVersion()),
      console: consoleProxy,
      vnc: { stream: consoleProxy, screenshot: new ScreenshotProxy(handlerBackend, { consoleServerPort }) },
      portForward: new PortForwardProxy(lifecycle, { logError }),
      vmiHandlerPut: new HandlerPutProxy(
        { ...handlerBackend, getVM: (namespace, name) => lifecycle.getVM(namespace, name) },
        VMI_HANDLER_VERBS,
        { consoleServerPort },
      ),
      volumes: new VolumeApp(lifecycle, () => config.current()),
      guestInfo: new GuestInfoProxy(handlerBackend, { consoleServerPort }),
      expand: new ExpandSpecApp(lifecycle, expander),
      metrics: new MetricsEndpoint(metrics.registry),
      logger: options.logger,
    });
    await server.listen({ host: options.host, port: options.port });
    metrics.ready.set(1);
    const stopWatching = reloadOnChange(
      server.server,
      { certFile: options.tlsCertFile, keyFile: options.tlsKeyFile, clientCA: () => requestHeader.clientCA },
      (error) => options.logger.error({ err: error }, "could not reload the serving certificate"),
    );
    const address = server.server.address();
    const port = typeof address === "object" && address ? address.port : options.port;
    const closed = new Promise<void>((resolve) => {
      const close = () => {
        metrics.ready.set(0);
        stopWatching();
        void Promise.all([server.close(), watching]).then(() => resolve());
      };
      if (signal.aborted) close();
      else signal.addEventListener("abort", close, { once: true });
    });
    return { port, closed };
  }
}
