// The live cluster configuration every component reads (upstream's virtconfig.NewClusterConfig over the
// KubeVirt informer of the install namespace, pkg/virt-config/virt-config.go): defaults until a deployed
// KubeVirt CR exists, then that CR's spec.configuration, followed on every change. An invalid
// configuration is refused and the last valid one stays in force. Readers call current() on every use,
// so a change in the CR takes effect without a restart.
import type { KubeVirt } from "../api/generated/v1.js";
import type { KubeClient } from "../controller/client.js";
import { resourceInformer, type Informer } from "../controller/informer.js";
import type { Logger } from "../controller/log.js";
import { kubeVirtsGVR, type StoredKubeVirt } from "../controller/resources.js";
import { ClusterConfig, selectActiveKubeVirt } from "./cluster-config.js";

/** A KubeVirt CR as the informer machinery carries it. */
export type KubeVirtObject = StoredKubeVirt;

export class ClusterConfigSource {
  private config = ClusterConfig.defaults();
  private resourceVersion = "";

  /** The source over the KubeVirt CRs of `namespace`, where KubeVirt is installed. */
  static forNamespace(client: KubeClient, namespace: string, logger: Logger): ClusterConfigSource {
    return new ClusterConfigSource(
      resourceInformer<KubeVirtObject>(client, kubeVirtsGVR, { namespace, logger }),
      logger,
    );
  }

  constructor(
    private readonly kubevirts: Informer<KubeVirtObject>,
    private readonly logger: Logger,
  ) {
    kubevirts.onChange(() => this.refresh());
  }

  /** Lists and watches until the signal aborts. */
  run(signal: AbortSignal): Promise<void> {
    return this.kubevirts.run(signal);
  }

  /** True once the first list is in: from then on current() is the CR's configuration, not a guess. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.kubevirts.waitForSync(signal);
  }

  current(): ClusterConfig {
    return this.config;
  }

  /** The resourceVersion of the KubeVirt CR in force; "" while the defaults are (healthz reports it). */
  configResourceVersion(): string {
    return this.resourceVersion;
  }

  private refresh(): void {
    const active = selectActiveKubeVirt(this.kubevirts.list() as KubeVirt[]);
    const next = ClusterConfig.fromKubeVirt(active, this.config);
    if (next.invalidReason !== undefined) {
      this.logger.error(
        { reason: next.invalidReason },
        "invalid cluster configuration, keeping the previous one",
      );
      return;
    }
    this.config = next;
    this.resourceVersion = active?.metadata?.resourceVersion ?? "";
  }
}
