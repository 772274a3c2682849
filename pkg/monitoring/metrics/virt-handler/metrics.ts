// virt-handler's registry (upstream pkg/monitoring/metrics/virt-handler): whether it serves, the rest client,
// and on every scrape the statistics of each VMI of this node, asked of its launcher.
import { Gauge, Registry } from "prom-client";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Logger } from "../../../controller/log.js";
import { RestClientMetrics } from "../common/client.js";
import { Collector, type CollectorResult } from "../common/collector.js";
import { blockMetrics } from "./domainstats/block.js";
import { cpuMetrics } from "./domainstats/cpu.js";
import { filesystemMetrics } from "./domainstats/filesystem.js";
import { memoryMetrics } from "./domainstats/memory.js";
import { networkMetrics } from "./domainstats/network.js";
import type { ResourceMetrics, VMIReport } from "./domainstats/report.js";
import { DomainStatsScraper, type ScraperOptions } from "./domainstats/scraper.js";
import { vcpuMetrics } from "./domainstats/vcpu.js";

const RESOURCE_METRICS: readonly ResourceMetrics[] = [
  memoryMetrics,
  cpuMetrics,
  vcpuMetrics,
  blockMetrics,
  networkMetrics,
  filesystemMetrics,
];

/** Every series of the reports; a report one resource cannot read loses that resource only. */
export function domainStatsResults(reports: readonly VMIReport[], logger?: Logger): CollectorResult[] {
  return reports.flatMap((report) =>
    RESOURCE_METRICS.flatMap((resource) => {
      try {
        return resource.collect(report);
      } catch (error) {
        logger?.warn({ vmi: report.vmi.metadata?.name, err: error }, "unreadable domain stats");
        return [];
      }
    }),
  );
}

export interface DomainStatsSources extends Omit<ScraperOptions, "logger"> {
  /** The VMIs of this node (the handler's VMI informer). */
  vmis(): readonly VirtualMachineInstance[];
}

export class HandlerMetrics {
  readonly registry = new Registry();
  readonly restClient = new RestClientMetrics(this.registry);
  readonly ready = new Gauge({
    name: "kubevirt_virt_handler_ready_status",
    help: "Indication for a virt-handler that is ready to serve requests.",
    registers: [this.registry],
  });
  private sources: { vmis: () => readonly VirtualMachineInstance[]; scraper: DomainStatsScraper } | undefined;

  constructor(private readonly logger?: Logger) {
    new Collector(
      this.registry,
      RESOURCE_METRICS.flatMap((resource) => resource.metrics),
      () => this.collectDomainStats(),
      (error) => logger?.warn({ err: error }, "domain stats collection failed"),
    );
  }

  /** Where the domain stats come from; until called, none are reported. */
  collectDomainStatsFrom(sources: DomainStatsSources): void {
    const { vmis, ...scraper } = sources;
    this.sources = { vmis, scraper: new DomainStatsScraper({ ...scraper, logger: this.logger }) };
  }

  private async collectDomainStats(): Promise<CollectorResult[]> {
    if (!this.sources) return [];
    const vmis = this.sources.vmis();
    if (vmis.length === 0) return [];
    return domainStatsResults(await this.sources.scraper.collect(vmis), this.logger);
  }
}
