import { isConflict, isNotFound } from "../../../pkg/controller/api-error.js";
import type { KubeClient } from "./kube-client.js";
import type { Lease } from "./k8s-types.js";
import type { Logger } from "./logger.js";

// The node heartbeat: a Lease named after the node in kube-node-lease, owned by the Node, renewed every
// 10 s (a quarter of its 40 s duration), as kubelet's node lease controller does.

export const LEASE_NAMESPACE = "kube-node-lease";
export const LEASE_DURATION_SECONDS = 40;
export const LEASE_RENEW_PERIOD_MS = 10_000;

/** metav1.MicroTime's wire format: RFC 3339 with exactly six fractional digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export class NodeLease {
  private cached: Lease | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly nodeName: string,
    private readonly nodeUID: () => string | undefined,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private desired(resourceVersion?: string): Record<string, unknown> {
    const uid = this.nodeUID();
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: this.nodeName,
        namespace: LEASE_NAMESPACE,
        ...(resourceVersion ? { resourceVersion } : {}),
        ...(uid ? { ownerReferences: [{ apiVersion: "v1", kind: "Node", name: this.nodeName, uid }] } : {}),
      },
      spec: {
        holderIdentity: this.nodeName,
        leaseDurationSeconds: LEASE_DURATION_SECONDS,
        renewTime: microTime(this.now()),
      },
    };
  }

  /** One renewal: update the lease we know, or fetch/create it when we know none or lost a race. */
  async renew(): Promise<void> {
    if (this.cached?.metadata.resourceVersion) {
      try {
        this.cached = await this.client.replaceLease(
          LEASE_NAMESPACE,
          this.nodeName,
          this.desired(this.cached.metadata.resourceVersion),
        );
        return;
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
        this.cached = undefined;
      }
    }
    const existing = await this.client.getLease(LEASE_NAMESPACE, this.nodeName);
    this.cached = existing
      ? await this.client.replaceLease(
          LEASE_NAMESPACE,
          this.nodeName,
          this.desired(existing.metadata.resourceVersion),
        )
      : await this.client.createLease(LEASE_NAMESPACE, this.desired());
  }

  run(signal: AbortSignal): void {
    const tick = (): void => {
      this.renew().catch((err: unknown) => this.log.error({ err }, "node lease renewal failed"));
    };
    tick();
    const timer = setInterval(tick, LEASE_RENEW_PERIOD_MS);
    signal.addEventListener("abort", () => clearInterval(timer), { once: true });
  }
}
