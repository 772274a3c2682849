// Asks each VMI's launcher for its statistics on a scrape (upstream collector/collector.go and
// domainstats/scrapper.go): all launchers at once, each through a fresh connection, none waited for past the
// collection timeout, and a launcher still busy with earlier scrapes skipped rather than asked again.
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import type { FileSystemList } from "../../../../api/guest-agent-info.js";
import type { Logger } from "../../../../controller/log.js";
import type { DomainStats } from "../../../../virt-launcher/virtwrap/stats/types.js";
import { VMIReport } from "./report.js";

/** Upstream's "long enough" for one collection. */
export const COLLECTION_TIMEOUT_MS = 10_000;

export interface LauncherStatsSource {
  getDomainStats(): Promise<DomainStats | undefined>;
  getFilesystems(): Promise<FileSystemList>;
  close(): void;
}

/** A connection to the VMI's launcher on this node; undefined when it has none here. */
export type StatsDialer = (vmi: VirtualMachineInstance) => Promise<LauncherStatsSource | undefined>;

export interface ScraperOptions {
  dial: StatsDialer;
  /** Collections from one launcher at a time. */
  maxRequestsPerLauncher: number;
  timeoutMs?: number;
  logger?: Logger;
}

export class DomainStatsScraper {
  private readonly busy = new Map<string, number>();

  constructor(private readonly options: ScraperOptions) {}

  /** The reports of the launchers that answered in time; the others are left out of this scrape. */
  async collect(vmis: readonly VirtualMachineInstance[]): Promise<VMIReport[]> {
    const reports = await Promise.all(vmis.map((vmi) => this.collectWithin(vmi)));
    return reports.filter((report): report is VMIReport => report !== undefined);
  }

  private async collectWithin(vmi: VirtualMachineInstance): Promise<VMIReport | undefined> {
    const key = `${vmi.metadata?.namespace ?? ""}/${vmi.metadata?.name ?? ""}`;
    const inFlight = this.busy.get(key) ?? 0;
    if (inFlight >= this.options.maxRequestsPerLauncher) {
      this.options.logger?.warn({ vmi: key }, "launcher busy from a previous collection, skipped");
      return undefined;
    }
    this.busy.set(key, inFlight + 1);
    const scrape = this.scrape(vmi, key).finally(() => {
      const left = (this.busy.get(key) ?? 1) - 1;
      if (left > 0) this.busy.set(key, left);
      else this.busy.delete(key);
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => {
        this.options.logger?.warn({ vmi: key }, "launcher took too long to answer its stats: ignored");
        resolve(undefined);
      }, this.options.timeoutMs ?? COLLECTION_TIMEOUT_MS);
    });
    try {
      return await Promise.race([scrape, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async scrape(vmi: VirtualMachineInstance, key: string): Promise<VMIReport | undefined> {
    const { dial, logger } = this.options;
    let source: LauncherStatsSource | undefined;
    try {
      source = await dial(vmi);
      if (!source) return undefined;
      const domainStats = await source.getDomainStats();
      // A VMI whose domain is going away has nothing to report.
      if (!domainStats?.Name) return undefined;
      const filesystems = await source.getFilesystems();
      return new VMIReport(vmi, { domainStats, filesystems });
    } catch (error) {
      logger?.warn({ vmi: key, err: error }, "failed to scrape metrics from the launcher");
      return undefined;
    } finally {
      source?.close();
    }
  }
}
