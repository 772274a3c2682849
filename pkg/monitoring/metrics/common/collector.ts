// Metrics computed on every scrape by one callback (upstream's operatormetrics.Collector): a scrape shows exactly
// the series the callback returns then, with whatever labels each carries, so nothing stale lingers. All the
// metrics of one collector share a single run of the callback per scrape.
import type { Metric, Registry } from "prom-client";

export interface MetricDescription {
  name: string;
  help: string;
  type: "gauge" | "counter";
}

export interface CollectorResult {
  metric: MetricDescription;
  /** Labels with an empty value are left out, as upstream's toolkit leaves them out. */
  labels?: Record<string, string>;
  value: number;
}

export type CollectCallback = () => CollectorResult[] | Promise<CollectorResult[]>;

interface CollectedValue {
  labels: Record<string, string>;
  value: number;
}

export class Collector {
  private running: Promise<Map<string, CollectedValue[]>> | undefined;

  constructor(
    registry: Registry,
    metrics: readonly MetricDescription[],
    private readonly collect: CollectCallback,
    /** A failing callback shows no series that scrape; this hears why. */
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    for (const metric of metrics) {
      const collected = {
        name: metric.name,
        help: metric.help,
        type: metric.type,
        aggregator: "sum",
        get: async () => ({ ...collected, values: (await this.results()).get(metric.name) ?? [] }),
        // Nothing is kept between scrapes, so there is nothing to reset.
        reset: () => undefined,
      };
      // prom-client reads any object with a name, help, type and get(); its types only name its own classes.
      registry.registerMetric(collected as unknown as Metric);
    }
  }

  /** One run of the callback for all the metrics of a scrape (the registry asks them all at once). */
  private results(): Promise<Map<string, CollectedValue[]>> {
    this.running ??= this.runOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  private async runOnce(): Promise<Map<string, CollectedValue[]>> {
    let results: CollectorResult[];
    try {
      results = await this.collect();
    } catch (error) {
      this.onError(error);
      results = [];
    }
    const byName = new Map<string, CollectedValue[]>();
    // A series reported twice would make Prometheus refuse the whole scrape: the first one stays.
    const seen = new Set<string>();
    for (const result of results) {
      const labels = Object.fromEntries(
        Object.entries(result.labels ?? {}).filter(([, value]) => value !== ""),
      );
      const key = JSON.stringify([result.metric.name, Object.entries(labels).sort()]);
      if (seen.has(key)) continue;
      seen.add(key);
      const values = byName.get(result.metric.name) ?? [];
      values.push({ labels, value: result.value });
      byName.set(result.metric.name, values);
    }
    return byName;
  }
}
