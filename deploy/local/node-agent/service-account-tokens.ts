import type { KubeClient } from "./kube-client.js";
import type { Pod } from "./k8s-types.js";
import type { TokenSource } from "./volumes.js";

// Bound service-account tokens for projected volumes, from the TokenRequest API, cached per pod,
// audience and lifetime, and renewed like kubelet's token manager: once 80% of the lifetime has
// passed, or after 24 hours.

const MAX_AGE_MS = 24 * 3600_000;

interface CachedToken {
  token: string;
  issuedAt: number;
  expiresAt: number;
}

export class ServiceAccountTokens implements TokenSource {
  private readonly cache = new Map<string, CachedToken>();

  constructor(
    private readonly client: KubeClient,
    private readonly now: () => number = Date.now,
  ) {}

  private fresh(entry: CachedToken | undefined): entry is CachedToken {
    if (!entry) return false;
    const now = this.now();
    const refreshAt = entry.expiresAt - (entry.expiresAt - entry.issuedAt) * 0.2;
    return now < refreshAt && now - entry.issuedAt < MAX_AGE_MS;
  }

  async token(pod: Pod, audience: string | undefined, expirationSeconds: number): Promise<string> {
    const key = `${pod.metadata.uid}/${audience ?? ""}/${expirationSeconds}`;
    const cached = this.cache.get(key);
    if (this.fresh(cached)) return cached.token;
    const request = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {
        ...(audience ? { audiences: [audience] } : {}),
        expirationSeconds,
        boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata.name, uid: pod.metadata.uid },
      },
    };
    const issuedAt = this.now();
    const answer = await this.client.requestServiceAccountToken(
      pod.metadata.namespace ?? "default",
      pod.spec.serviceAccountName ?? "default",
      request,
    );
    const expiresAt = Date.parse(answer.status.expirationTimestamp);
    this.cache.set(key, { token: answer.status.token, issuedAt, expiresAt });
    return answer.status.token;
  }

  forget(podUID: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${podUID}/`)) this.cache.delete(key);
  }
}
