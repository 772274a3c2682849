import { ApiError } from "../api-error.js";
import type { ListResult, ListWatchSource, SourceEvent } from "../informer-source.js";
import type { KubeObject } from "../object.js";

interface OpenWatch<T> {
  resourceVersion: string;
  emit: (event: SourceEvent<T>) => void;
  end: (err?: unknown) => void;
}

/**
 * An in-memory list/watch source for informer tests: the test sets what `list` returns, then pushes
 * watch events (or ends/fails the open watch) and observes how the informer reacts.
 */
export class FakeListWatch<T extends KubeObject> implements ListWatchSource<T> {
  listResult: ListResult<T> = { items: [], resourceVersion: "1" };
  /** When set, the next list call rejects with it (then it is cleared). */
  listError: unknown;
  listCalls = 0;
  readonly watchedFrom: string[] = [];
  private open: OpenWatch<T> | undefined;
  private waiters: Array<() => void> = [];

  async list(): Promise<ListResult<T>> {
    this.listCalls++;
    if (this.listError !== undefined) {
      const err = this.listError;
      this.listError = undefined;
      throw err;
    }
    return { items: [...this.listResult.items], resourceVersion: this.listResult.resourceVersion };
  }

  watch(
    resourceVersion: string,
    signal: AbortSignal,
    onEvent: (event: SourceEvent<T>) => void,
  ): Promise<void> {
    this.watchedFrom.push(resourceVersion);
    return new Promise<void>((resolve, reject) => {
      const end = (err?: unknown) => {
        this.open = undefined;
        if (err === undefined) resolve();
        else reject(err);
      };
      signal.addEventListener("abort", () => end(), { once: true });
      this.open = { resourceVersion, emit: onEvent, end };
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  get watching(): boolean {
    return this.open !== undefined;
  }

  /** Resolves once a watch is open (immediately if one is). */
  async untilWatching(): Promise<void> {
    if (this.open) return;
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  emit(type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK", object: T): void {
    if (!this.open) throw new Error("no watch is open");
    this.open.emit({ type, object });
  }

  /** Sends the ERROR event an apiserver sends when the watched resourceVersion was compacted away. */
  expire(): void {
    if (!this.open) throw new Error("no watch is open");
    this.open.emit({
      type: "ERROR",
      error: new ApiError(410, "Expired", "too old resource version"),
    });
  }

  endWatch(err?: unknown): void {
    if (!this.open) throw new Error("no watch is open");
    this.open.end(err);
  }
}
