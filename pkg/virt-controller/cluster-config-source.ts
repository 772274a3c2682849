// The cluster configuration virt-controller works with, kept current from the KubeVirt CR in its own
// namespace (upstream's ClusterConfig over the KubeVirt informer): defaults until a deployed CR exists;
// an invalid configuration is refused and the last valid one stays in force.
import type { Informer } from "../controller/informer.js";
import type { Logger } from "../controller/log.js";
import { ClusterConfig, selectActiveKubeVirt } from "../virt-config/cluster-config.js";
import type { StoredKubeVirt } from "../controller/resources.js";

export class ClusterConfigSource {
  private config = ClusterConfig.defaults();
  private resourceVersion = "";

  constructor(
    private readonly kubevirts: Informer<StoredKubeVirt>,
    private readonly logger: Logger,
  ) {
    kubevirts.onChange(() => this.refresh());
  }

  current(): ClusterConfig {
    return this.config;
  }

  /** The resourceVersion of the KubeVirt CR in force; "" while the defaults are. */
  configResourceVersion(): string {
    return this.resourceVersion;
  }

  private refresh(): void {
    const active = selectActiveKubeVirt(this.kubevirts.list());
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
