// virt-operator as a process (upstream's application.go): informers, the metrics endpoint, the admission
// webhook server, and the KubeVirt controller run by whichever replica holds the `virt-operator` Lease.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { KubeConfig } from "@kubernetes/client-node";
import { newCA, newServerKeyPair, toPem } from "../certificates/triple.js";
import { KubeClient } from "../controller/client.js";
import { clientEventSink, EventRecorder } from "../controller/events.js";
import { LeaderElector } from "../controller/leader-election.js";
import { LeaseLock } from "../controller/lease-lock.js";
import type { Logger } from "../controller/log.js";
import { KubeOperatorClient, type ObjectStore } from "./cluster.js";
import { createOperatorInformers, runInformers } from "./informers.js";
import { KubeVirtController } from "./kubevirt.js";
import { OperatorMetrics } from "./metrics.js";
import type { Secret } from "./resource/generate/components/k8s-types.js";
import {
  OPERATOR_WEBHOOK_SERVICE,
  VIRT_OPERATOR_CERT_SECRET,
  VIRT_OPERATOR_NAME,
} from "./resource/generate/components/names.js";
import { reply, SecretCertificateSource, TlsServer, type PemPair } from "./tls-server.js";
import type { Env } from "./util/config.js";
import { loadSwagger } from "./util/swagger.js";
import { admissionHandler, operatorAdmitters } from "./webhooks/server.js";

/** Upstream runs the KubeVirt controller with three workers. */
const CONTROLLER_THREADS = 3;

export interface VirtOperatorOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  env: Env;
  /** Metrics endpoint (upstream's --port). */
  host: string;
  port: number;
  webhookPort: number;
  /** Leader election identity (the pod name). */
  identity: string;
  logger: Logger;
  swagger?: unknown;
  leaderElection?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
}

/** A throw-away certificate for the metrics endpoint until kubevirt-operator-certs exists. */
async function fallbackCertificate(namespace: string): Promise<PemPair> {
  const ca = await newCA("virt-operator-fallback");
  const pair = await toPem(
    await newServerKeyPair(ca, { commonName: `${OPERATOR_WEBHOOK_SERVICE}.${namespace}` }),
  );
  return { cert: pair.certPem, key: pair.keyPem };
}

export class VirtOperatorApp {
  readonly metrics = new OperatorMetrics();
  private webhookServer: TlsServer | undefined;
  private metricsServer: TlsServer | undefined;

  constructor(private readonly opts: VirtOperatorOptions) {}

  /** The webhook server's port once running (tests listen on port 0). */
  webhookPort(): number | undefined {
    return this.webhookServer?.port();
  }

  private async serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? "/", "https://operator").pathname !== "/metrics")
      return reply(res, 404, "not found");
    reply(res, 200, await this.metrics.registry.metrics(), this.metrics.registry.contentType);
  }

  /** Runs until the signal aborts (resolves) or leadership is lost (rejects: upstream exits then). */
  async run(signal: AbortSignal): Promise<void> {
    const { opts } = this;
    const client = KubeClient.fromKubeConfig(opts.kubeConfig, this.metrics.restClient);
    const operatorClient = new KubeOperatorClient(client);
    const informers = createOperatorInformers(client, opts.namespace, opts.logger);
    const synced = runInformers(informers, signal);
    const secrets = informers.stores.secrets as ObjectStore<Secret>;
    const certKey = `${opts.namespace}/${VIRT_OPERATOR_CERT_SECRET}`;

    this.metricsServer = new TlsServer(
      "metrics",
      new SecretCertificateSource(secrets, certKey, await fallbackCertificate(opts.namespace)),
      (req, res) => this.serveMetrics(req, res),
      opts.logger,
    );
    await this.metricsServer.start(opts.host, opts.port);
    this.webhookServer = new TlsServer(
      "webhooks",
      new SecretCertificateSource(secrets, certKey),
      admissionHandler(operatorAdmitters(operatorClient)),
      opts.logger,
    );
    await this.webhookServer.start(opts.host, opts.webhookPort);

    const controller = new KubeVirtController({
      client: operatorClient,
      stores: informers.stores,
      commonInstancetypeStores: informers.commonInstancetypes.stores,
      operatorNamespace: opts.namespace,
      swagger: opts.swagger ?? loadSwagger(),
      env: opts.env,
      logger: opts.logger,
    });
    const recorder = new EventRecorder(
      clientEventSink(client),
      { component: VIRT_OPERATOR_NAME },
      { logger: opts.logger },
    );
    let lostLeadership = false;
    const elector = new LeaderElector({
      lock: new LeaseLock(client, opts.namespace, VIRT_OPERATOR_NAME, opts.identity, recorder),
      name: VIRT_OPERATOR_NAME,
      logger: opts.logger,
      ...opts.leaderElection,
      callbacks: {
        onStartedLeading: async (leading) => {
          this.metrics.leading.set(1);
          opts.logger.info("Started leading");
          if (await synced) await controller.run(CONTROLLER_THREADS, leading);
        },
        onStoppedLeading: () => {
          this.metrics.leading.set(0);
          lostLeadership = !signal.aborted;
        },
      },
    });
    this.metrics.ready.set(1);
    opts.logger.info("Attempting to acquire leader status");
    try {
      await elector.run(signal);
    } finally {
      await Promise.all([this.webhookServer.stop(), this.metricsServer.stop(), recorder.shutdown()]);
    }
    if (lostLeadership) throw new Error("leaderelection lost");
  }
}
