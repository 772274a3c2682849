import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { describedAs, parseExposition } from "../testing/exposition.js";
import { Collector, type CollectorResult, type MetricDescription } from "./collector.js";

const up: MetricDescription = { name: "test_up", help: "Whether it is up.", type: "gauge" };
const bytes: MetricDescription = { name: "test_bytes_total", help: "Bytes moved.", type: "counter" };

describe("Collector", () => {
  it("runs the callback once per scrape for all its metrics and shows only what it returns now", async () => {
    const registry = new Registry();
    let runs = 0;
    let results: CollectorResult[] = [
      { metric: up, labels: { name: "a", node: "" }, value: 1 },
      { metric: bytes, labels: { name: "a", interface: "eth0" }, value: 42 },
    ];
    new Collector(registry, [up, bytes], () => {
      runs++;
      return results;
    });

    const first = await registry.metrics();
    expect(runs).toBe(1);
    expect(describedAs(first, "test_up")).toEqual(["Whether it is up.", "gauge"]);
    expect(describedAs(first, "test_bytes_total")).toEqual(["Bytes moved.", "counter"]);
    expect(parseExposition(first)).toEqual([
      // The empty node label is left out.
      { name: "test_up", labels: { name: "a" }, value: 1 },
      { name: "test_bytes_total", labels: { name: "a", interface: "eth0" }, value: 42 },
    ]);

    results = [{ metric: up, labels: { name: "b" }, value: 0 }];
    expect(parseExposition(await registry.metrics())).toEqual([
      { name: "test_up", labels: { name: "b" }, value: 0 },
    ]);
    expect(runs).toBe(2);
  });

  it("keeps the first of two identical series", async () => {
    const registry = new Registry();
    new Collector(registry, [up], () => [
      { metric: up, labels: { name: "a" }, value: 1 },
      { metric: up, labels: { name: "a" }, value: 2 },
    ]);
    expect(parseExposition(await registry.metrics())).toEqual([
      { name: "test_up", labels: { name: "a" }, value: 1 },
    ]);
  });

  it("shows nothing, and says why, when the callback fails", async () => {
    const registry = new Registry();
    const errors: unknown[] = [];
    new Collector(
      registry,
      [up],
      () => Promise.reject(new Error("store broke")),
      (error) => errors.push(error),
    );
    expect(parseExposition(await registry.metrics())).toEqual([]);
    expect(errors).toEqual([new Error("store broke")]);
  });
});

describe("Collector in a registry", () => {
  it("survives the registry's reset and JSON export", async () => {
    const registry = new Registry();
    new Collector(registry, [up], () => [{ metric: up, labels: { name: "a" }, value: 1 }]);
    registry.resetMetrics();
    expect(await registry.getMetricsAsJSON()).toMatchObject([
      { name: "test_up", type: "gauge", values: [{ labels: { name: "a" }, value: 1 }] },
    ]);
  });
});
