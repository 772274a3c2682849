import { describe, expect, it } from "vitest";
import { describedAs, samplesOf } from "../monitoring/metrics/testing/exposition.js";
import { OperatorMetrics } from "./metrics.js";

describe("OperatorMetrics", () => {
  it("serves its state and the rest client metrics every component has", async () => {
    const metrics = new OperatorMetrics();
    metrics.ready.set(1);
    metrics.restClient.responded(
      {
        method: "GET",
        server: "https://10.96.0.1:443",
        path: "/apis/kubevirt.io/v1/namespaces/kubevirt/kubevirts",
      },
      "200",
    );
    const text = await metrics.registry.metrics();
    expect(samplesOf(text, "kubevirt_virt_operator_ready_status").map((s) => s.value)).toEqual([1]);
    expect(samplesOf(text, "kubevirt_rest_client_requests_total")).toEqual([
      {
        name: "kubevirt_rest_client_requests_total",
        labels: { code: "200", method: "GET", host: "10.96.0.1:443", resource: "kubevirts", verb: "LIST" },
        value: 1,
      },
    ]);
    expect(describedAs(text, "kubevirt_rest_client_request_latency_seconds")[1]).toBe("histogram");
  });
});
