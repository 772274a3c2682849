import { systemClock, type Clock } from "./clock.js";
import { defaultLogger, type Logger } from "./log.js";

// KubeVirt's controller expectations (pkg/controller/expectations.go, itself from kube-controller-manager):
// before creating or deleting children a controller records how many it expects to see; the informer
// handlers lower the counts as the children appear or vanish; until then (or until the expectations are
// 5 minutes old) the controller does not act again, so a slow cache cannot make it create duplicates.

/** How many creations or deletions a controller sends in one sync at most (upstream's BurstReplicas). */
export const BurstReplicas = 250;

/** If a watch drops an event, expectations older than this are considered satisfied anyway. */
export const ExpectationsTimeoutMs = 5 * 60 * 1000;

export interface ControlleeExpectations {
  readonly key: string;
  add: number;
  del: number;
  /** When they were set (ms since epoch). */
  readonly timestamp: number;
}

function fulfilled(exp: ControlleeExpectations): boolean {
  return exp.add <= 0 && exp.del <= 0;
}

export class ControllerExpectations {
  private readonly store = new Map<string, ControlleeExpectations>();

  constructor(
    readonly name = "n/a",
    private readonly clock: Pick<Clock, "now"> = systemClock,
    private readonly logger: Logger = defaultLogger,
  ) {}

  getExpectations(controllerKey: string): Readonly<ControlleeExpectations> | undefined {
    return this.store.get(controllerKey);
  }

  /** True when nothing is pending: never set, all observed, or expired. */
  satisfiedExpectations(controllerKey: string): boolean {
    const exp = this.store.get(controllerKey);
    if (!exp) return true;
    if (fulfilled(exp)) return true;
    if (this.clock.now() - exp.timestamp > ExpectationsTimeoutMs) {
      this.logger.debug({ expectations: this.name, key: controllerKey }, "controller expectations expired");
      return true;
    }
    return false;
  }

  deleteExpectations(controllerKey: string): void {
    this.store.delete(controllerKey);
  }

  /** Replaces whatever was expected before, restarting the TTL. */
  setExpectations(controllerKey: string, add: number, del: number): void {
    this.store.set(controllerKey, { key: controllerKey, add, del, timestamp: this.clock.now() });
  }

  expectCreations(controllerKey: string, adds: number): void {
    this.setExpectations(controllerKey, adds, 0);
  }

  expectDeletions(controllerKey: string, dels: number): void {
    this.setExpectations(controllerKey, 0, dels);
  }

  /** Only touches existing expectations; the TTL keeps running from when they were set. */
  raiseExpectations(controllerKey: string, add: number, del: number): void {
    const exp = this.store.get(controllerKey);
    if (!exp) return;
    exp.add += add;
    exp.del += del;
  }

  lowerExpectations(controllerKey: string, add: number, del: number): void {
    this.raiseExpectations(controllerKey, -add, -del);
  }

  creationObserved(controllerKey: string): void {
    this.lowerExpectations(controllerKey, 1, 0);
  }

  deletionObserved(controllerKey: string): void {
    this.lowerExpectations(controllerKey, 0, 1);
  }

  allPendingCreations(): number {
    let sum = 0;
    for (const exp of this.store.values()) sum += exp.add;
    return sum;
  }
}

/**
 * Expectations that also remember which children (by key or UID) a controller deleted, so that both the
 * update setting deletionTimestamp and the final delete event count as one deletion, never two.
 */
export class UIDTrackingControllerExpectations {
  private readonly uids = new Map<string, Set<string>>();

  constructor(
    readonly expectations: ControllerExpectations,
    private readonly logger: Logger = defaultLogger,
  ) {}

  getUIDs(controllerKey: string): ReadonlySet<string> | undefined {
    return this.uids.get(controllerKey);
  }

  /** Expects exactly these deletions, replacing any still pending. */
  expectDeletions(controllerKey: string, deletedKeys: readonly string[]): void {
    if ((this.uids.get(controllerKey)?.size ?? 0) > 0) {
      this.logger.warn({ key: controllerKey }, "clobbering existing delete keys");
    }
    const expected = new Set(deletedKeys);
    this.uids.set(controllerKey, expected);
    this.expectations.expectDeletions(controllerKey, expected.size);
  }

  /** Adds one deletion to those pending (resetting the TTL, as upstream does). */
  addExpectedDeletion(controllerKey: string, deletedKey: string): void {
    const expected = this.uids.get(controllerKey) ?? new Set<string>();
    expected.add(deletedKey);
    this.uids.set(controllerKey, expected);
    this.expectations.expectDeletions(controllerKey, expected.size);
  }

  /** Counts the deletion only if it was expected and not counted before. */
  deletionObserved(controllerKey: string, deletedKey: string): void {
    const expected = this.uids.get(controllerKey);
    if (!expected?.has(deletedKey)) return;
    this.expectations.deletionObserved(controllerKey);
    expected.delete(deletedKey);
  }

  deleteExpectations(controllerKey: string): void {
    this.expectations.deleteExpectations(controllerKey);
    this.uids.delete(controllerKey);
  }

  satisfiedExpectations(controllerKey: string): boolean {
    return this.expectations.satisfiedExpectations(controllerKey);
  }

  expectCreations(controllerKey: string, adds: number): void {
    this.expectations.expectCreations(controllerKey, adds);
  }

  creationObserved(controllerKey: string): void {
    this.expectations.creationObserved(controllerKey);
  }

  lowerExpectations(controllerKey: string, add: number, del: number): void {
    this.expectations.lowerExpectations(controllerKey, add, del);
  }

  raiseExpectations(controllerKey: string, add: number, del: number): void {
    this.expectations.raiseExpectations(controllerKey, add, del);
  }
}
