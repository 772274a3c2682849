// The KubeVirt CA bundle as the components trust it right now (upstream pkg/util/tls/ca-manager.go):
// read from the `kubevirt-ca` ConfigMap in an informer's cache, re-read when the ConfigMap changes, and
// the last good bundle kept when the ConfigMap disappears or turns unreadable.
import type { Informer, KubeObject } from "../../controller/index.js";
import { caBundleOf } from "./tls.js";

export interface ConfigMapObject extends KubeObject {
  data?: Record<string, string>;
}

export class CAManager {
  private bundle: string | undefined;
  private readonly listeners = new Set<(pem: string) => void>();

  constructor(
    private readonly configMaps: Pick<Informer<ConfigMapObject>, "onChange" | "getByName">,
    private readonly namespace: string,
    private readonly name: string,
    private readonly onError: (message: string) => void = () => undefined,
  ) {
    configMaps.onChange(() => this.refresh());
    this.refresh();
  }

  /** The PEM bundle, or undefined before one was ever read. */
  current(): string | undefined {
    return this.bundle;
  }

  /** Called with each new bundle (not with the same one again). */
  onChange(listener: (pem: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first bundle, or undefined if the signal aborts before there is one. */
  ready(signal: AbortSignal): Promise<string | undefined> {
    if (this.bundle !== undefined) return Promise.resolve(this.bundle);
    return new Promise((resolve) => {
      const done = (pem: string | undefined) => {
        stop();
        signal.removeEventListener("abort", onAbort);
        resolve(pem);
      };
      const onAbort = () => done(undefined);
      const stop = this.onChange((pem) => done(pem));
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private refresh(): void {
    const loaded = caBundleOf(
      this.configMaps.getByName(this.namespace, this.name),
      this.namespace,
      this.name,
    );
    if (!loaded.ok) {
      this.onError(loaded.message);
      return;
    }
    if (loaded.pem === this.bundle) return;
    this.bundle = loaded.pem;
    for (const listener of [...this.listeners]) listener(loaded.pem);
  }
}
