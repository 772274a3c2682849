// virt-api's registry (upstream pkg/monitoring/metrics/virt-api): whether it serves, and the rest client.
import { Gauge, Registry } from "prom-client";
import { RestClientMetrics } from "../common/client.js";

export class ApiMetrics {
  readonly registry = new Registry();
  readonly restClient = new RestClientMetrics(this.registry);
  readonly ready = new Gauge({
    name: "kubevirt_virt_api_ready_status",
    help: "Indication for a virt-api server that is ready to serve requests.",
    registers: [this.registry],
  });
}
