import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { parseExposition } from "../testing/exposition.js";
import { Collector, type MetricDescription } from "./collector.js";
import { MetricsEndpoint } from "./endpoint.js";

const up: MetricDescription = { name: "test_up", help: "Whether it is up.", type: "gauge" };

describe("MetricsEndpoint", () => {
  it("answers the exposition, and refuses scrapes over the limit while one is collecting", async () => {
    const registry = new Registry();
    let release = () => undefined as void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    new Collector(registry, [up], async () => {
      await blocked;
      return [{ metric: up, value: 1 }];
    });
    const endpoint = new MetricsEndpoint(registry, 1);
    const first = endpoint.answer();
    const second = await endpoint.answer();
    expect(second).toEqual({
      code: 503,
      contentType: "text/plain; charset=utf-8",
      body: "Limit of concurrent requests reached (1), try again later.\n",
    });
    release();
    const answered = await first;
    expect(answered.code).toBe(200);
    expect(answered.contentType).toBe(registry.contentType);
    expect(parseExposition(answered.body)).toEqual([{ name: "test_up", labels: {}, value: 1 }]);
  });
});
