// virt-controller's own state (upstream component_metrics.go): ready to take the lead, and leading.
import { Gauge, type Registry } from "prom-client";

export class ComponentMetrics {
  readonly leading: Gauge;
  readonly ready: Gauge;

  constructor(registry: Registry) {
    this.leading = new Gauge({
      name: "kubevirt_virt_controller_leading_status",
      help: "Indication for an operating virt-controller.",
      registers: [registry],
    });
    this.ready = new Gauge({
      name: "kubevirt_virt_controller_ready_status",
      help: "Indication for a virt-controller that is ready to take the lead.",
      registers: [registry],
    });
  }
}
