// virt-operator's own metrics, with upstream's names (pkg/monitoring/metrics/virt-operator).
import { Gauge, Registry } from "prom-client";
import { RestClientMetrics } from "../monitoring/metrics/common/client.js";

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly restClient = new RestClientMetrics(this.registry);
  readonly leading = new Gauge({
    name: "kubevirt_virt_operator_leading_status",
    help: "Indication for an operating virt-operator.",
    registers: [this.registry],
  });
  readonly ready = new Gauge({
    name: "kubevirt_virt_operator_ready_status",
    help: "Indication for a virt-operator that is ready to take the lead.",
    registers: [this.registry],
  });
}
