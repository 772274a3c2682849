import type { KubeClient, ResourceClient } from "./client.js";
import type { EventRecorder } from "./events.js";
import { coreGVR } from "./gvr.js";
import type { KubeObject } from "./object.js";

// client-go's resourcelock.LeaseLock: the leader election record lives in a coordination.k8s.io/v1 Lease.
// Updates send the Lease last read or written, resourceVersion included, so a competing writer makes
// them fail with a Conflict (optimistic concurrency).

export interface LeaderElectionRecord {
  /** "" when nobody holds the lease (after a release). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** ms since epoch */
  acquireTime: number;
  renewTime: number;
  leaderTransitions: number;
}

export interface ObservedRecord {
  record: LeaderElectionRecord;
  /** A serialization to tell whether the record changed since last seen. */
  raw: string;
}

export interface ResourceLock {
  identity(): string;
  describe(): string;
  /** Rejects with a NotFound ApiError when the lock object does not exist. */
  get(signal?: AbortSignal): Promise<ObservedRecord>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  recordEvent(message: string): void;
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function parseTime(value: string | undefined): number {
  const ms = value ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

export function recordFromLeaseSpec(spec: LeaseSpec = {}): LeaderElectionRecord {
  return {
    holderIdentity: spec.holderIdentity ?? "",
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: parseTime(spec.acquireTime),
    renewTime: parseTime(spec.renewTime),
    leaderTransitions: spec.leaseTransitions ?? 0,
  };
}

export function leaseSpecFromRecord(record: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: formatMicroTime(record.acquireTime),
    renewTime: formatMicroTime(record.renewTime),
    leaseTransitions: record.leaderTransitions,
  };
}

export class LeaseLock implements ResourceLock {
  private readonly leases: ResourceClient<Lease>;
  private lease: Lease | undefined;

  constructor(
    client: KubeClient,
    readonly namespace: string,
    readonly name: string,
    private readonly id: string,
    private readonly recorder?: EventRecorder,
  ) {
    this.leases = client.resource<Lease>(coreGVR.leases);
  }

  identity(): string {
    return this.id;
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(signal?: AbortSignal): Promise<ObservedRecord> {
    this.lease = await this.leases.get(this.namespace, this.name, signal);
    const record = recordFromLeaseSpec(this.lease.spec);
    return { record, raw: JSON.stringify(record) };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.lease = await this.leases.create(
      {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: this.name, namespace: this.namespace },
        spec: leaseSpecFromRecord(record),
      },
      { signal },
    );
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.lease) throw new Error("lease not initialized, call get or create first");
    this.lease = await this.leases.update({ ...this.lease, spec: leaseSpecFromRecord(record) }, { signal });
  }

  /** Like client-go: a Normal "LeaderElection" event on the Lease, e.g. "<identity> became leader". */
  recordEvent(message: string): void {
    if (!this.recorder || !this.lease?.metadata) return;
    const subject: Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: this.lease.metadata,
    };
    this.recorder.event(subject, "Normal", "LeaderElection", `${this.id} ${message}`);
  }
}
