import { ApiError } from "../api-error.js";
import type { LeaderElectionRecord, ObservedRecord, ResourceLock } from "../lease-lock.js";

/** One Lease as an apiserver would keep it: a record plus a resourceVersion bumped on every write. */
export class FakeLeaseStore {
  record: LeaderElectionRecord | undefined;
  resourceVersion = 0;
  /** While true every call fails as if the apiserver were unreachable. */
  down = false;
  writes = 0;

  /** Another party overwrites the lease (e.g. a competing elector with a skewed view). */
  overwrite(record: LeaderElectionRecord): void {
    this.record = { ...record };
    this.resourceVersion++;
  }
}

/** A ResourceLock over a FakeLeaseStore with the Lease lock's optimistic-concurrency rules. */
export class FakeLeaseLock implements ResourceLock {
  private seenVersion: number | undefined;
  readonly events: string[] = [];

  constructor(
    private readonly store: FakeLeaseStore,
    private readonly id: string,
  ) {}

  identity(): string {
    return this.id;
  }

  describe(): string {
    return "fake/lease";
  }

  private reachable(): void {
    if (this.store.down) throw new Error("connect ECONNREFUSED");
  }

  async get(): Promise<ObservedRecord> {
    this.reachable();
    if (!this.store.record)
      throw new ApiError(404, "NotFound", 'leases.coordination.k8s.io "lease" not found');
    this.seenVersion = this.store.resourceVersion;
    return { record: { ...this.store.record }, raw: JSON.stringify(this.store.record) };
  }

  async create(record: LeaderElectionRecord): Promise<void> {
    this.reachable();
    if (this.store.record) throw new ApiError(409, "AlreadyExists", "already exists");
    this.store.overwrite(record);
    this.store.writes++;
    this.seenVersion = this.store.resourceVersion;
  }

  async update(record: LeaderElectionRecord): Promise<void> {
    this.reachable();
    if (this.seenVersion === undefined) throw new Error("lease not initialized, call get or create first");
    if (this.seenVersion !== this.store.resourceVersion) {
      throw new ApiError(
        409,
        "Conflict",
        "the object has been modified; please apply your changes to the latest version",
      );
    }
    this.store.overwrite(record);
    this.store.writes++;
    this.seenVersion = this.store.resourceVersion;
  }

  recordEvent(message: string): void {
    this.events.push(`${this.id} ${message}`);
  }
}
