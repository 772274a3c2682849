// Each vNIC's traffic (upstream network_metrics.go), named by the VMI's interface name when the launcher knows it.
import type { CollectorResult, MetricDescription } from "../../common/collector.js";
import type { ResourceMetrics, VMIReport } from "./report.js";

const counter = (name: string, help: string): MetricDescription => ({ name, help, type: "counter" });

export const networkTrafficBytesDeprecated = counter(
  "kubevirt_vmi_network_traffic_bytes_total",
  "[Deprecated] Total number of bytes sent and received.",
);
export const networkReceiveBytes = counter(
  "kubevirt_vmi_network_receive_bytes_total",
  "Total network traffic received in bytes.",
);
export const networkTransmitBytes = counter(
  "kubevirt_vmi_network_transmit_bytes_total",
  "Total network traffic transmitted in bytes.",
);
export const networkReceivePackets = counter(
  "kubevirt_vmi_network_receive_packets_total",
  "Total network traffic received packets.",
);
export const networkTransmitPackets = counter(
  "kubevirt_vmi_network_transmit_packets_total",
  "Total network traffic transmitted packets.",
);
export const networkReceiveErrors = counter(
  "kubevirt_vmi_network_receive_errors_total",
  "Total network received error packets.",
);
export const networkTransmitErrors = counter(
  "kubevirt_vmi_network_transmit_errors_total",
  "Total network transmitted error packets.",
);
export const networkReceiveDropped = counter(
  "kubevirt_vmi_network_receive_packets_dropped_total",
  "The total number of rx packets dropped on vNIC interfaces.",
);
export const networkTransmitDropped = counter(
  "kubevirt_vmi_network_transmit_packets_dropped_total",
  "The total number of tx packets dropped on vNIC interfaces.",
);

export const networkMetrics: ResourceMetrics = {
  metrics: [
    networkTrafficBytesDeprecated,
    networkReceiveBytes,
    networkTransmitBytes,
    networkReceivePackets,
    networkTransmitPackets,
    networkReceiveErrors,
    networkTransmitErrors,
    networkReceiveDropped,
    networkTransmitDropped,
  ],
  collect(report: VMIReport): CollectorResult[] {
    const results: CollectorResult[] = [];
    for (const net of report.stats.domainStats.Net ?? []) {
      if (!net.NameSet) continue;
      const iface = net.AliasSet ? net.Alias : net.Name;
      const labels = { interface: iface };
      if (net.RxBytesSet) {
        results.push(
          report.result(networkTrafficBytesDeprecated, net.RxBytes, { interface: iface, type: "rx" }),
        );
        results.push(report.result(networkReceiveBytes, net.RxBytes, labels));
      }
      if (net.TxBytesSet) {
        results.push(
          report.result(networkTrafficBytesDeprecated, net.TxBytes, { interface: iface, type: "tx" }),
        );
        results.push(report.result(networkTransmitBytes, net.TxBytes, labels));
      }
      if (net.RxPktsSet) results.push(report.result(networkReceivePackets, net.RxPkts, labels));
      if (net.TxPktsSet) results.push(report.result(networkTransmitPackets, net.TxPkts, labels));
      if (net.RxErrsSet) results.push(report.result(networkReceiveErrors, net.RxErrs, labels));
      if (net.TxErrsSet) results.push(report.result(networkTransmitErrors, net.TxErrs, labels));
      if (net.RxDropSet) results.push(report.result(networkReceiveDropped, net.RxDrop, labels));
      if (net.TxDropSet) results.push(report.result(networkTransmitDropped, net.TxDrop, labels));
    }
    return results;
  },
};
