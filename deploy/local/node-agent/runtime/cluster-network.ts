import { z } from "zod";
import { CommandError, runCommand } from "./exec.js";
import type { RunCommand } from "./exec.js";
import { GUARD_COUNTERS, renderGuardRuleset } from "./guard-ruleset.js";
import type { GuardCounter } from "./guard-ruleset.js";
import { IpTool } from "./ip-tool.js";
import { ensureSecondaryBridge } from "./secondary-bridges.js";
import { serviceSinkName, validateClusterNetworkConfig } from "./cluster-network-config.js";
import type { ClusterNetworkConfig } from "./cluster-network-config.js";

// The host-wide part of the cluster network, shared by every node agent on the machine: the nftables guard
// that keeps pod and guest traffic inside the machine, blackhole routes for unused cluster ranges, the
// sink for service addresses, and the bridges of the secondary networks (secondary-bridges.ts). `ensure` is idempotent (each node agent may call it); `teardown` removes all
// of it and is meant for `make down` once no node is left.

const counterSchema = z.looseObject({
  nftables: z.array(z.looseObject({ counter: z.looseObject({ packets: z.number() }).optional() })),
});

export class ClusterNetwork {
  private readonly ip: IpTool;

  constructor(
    readonly config: ClusterNetworkConfig,
    private readonly run: RunCommand = runCommand,
  ) {
    validateClusterNetworkConfig(config);
    this.ip = new IpTool(run);
  }

  async ensure(): Promise<void> {
    await this.run("nft", ["-f", "-"], { input: renderGuardRuleset(this.config) });
    for (const range of this.config.blackholeRanges) await this.ip.replaceRoute(["blackhole", range]);
    if (this.config.serviceRanges.length > 0) {
      const sink = serviceSinkName(this.config);
      await this.ip.ensureBridge(sink);
      for (const range of this.config.serviceRanges) await this.ip.replaceRoute([range, "dev", sink]);
    }
    for (const bridge of this.config.secondaryBridges ?? [])
      await ensureSecondaryBridge(this.ip, bridge.name);
  }

  async teardown(): Promise<void> {
    for (const bridge of this.config.secondaryBridges ?? []) await this.ip.deleteLink(bridge.name);
    await this.ip.deleteLink(serviceSinkName(this.config));
    for (const range of this.config.blackholeRanges) await this.ip.deleteRoute(["blackhole", range]);
    try {
      await this.run("nft", ["delete", "table", "inet", this.config.tableName]);
    } catch (error) {
      if (!(error instanceof CommandError && /No such file|does not exist/.test(error.stderr))) throw error;
    }
  }

  /** Packets a guard rule dropped so far (0 when the table is absent). */
  async droppedPackets(counter: GuardCounter = GUARD_COUNTERS.escaped): Promise<number> {
    try {
      const out = await this.run("nft", ["-j", "list", "counter", "inet", this.config.tableName, counter]);
      const entries = counterSchema.parse(JSON.parse(out)).nftables;
      return entries.reduce((sum, entry) => sum + (entry.counter?.packets ?? 0), 0);
    } catch (error) {
      if (error instanceof CommandError) return 0;
      throw error;
    }
  }

  /** Whether the guard table is installed, for health checks. */
  async isInstalled(): Promise<boolean> {
    try {
      await this.run("nft", ["list", "table", "inet", this.config.tableName]);
      return true;
    } catch (error) {
      if (error instanceof CommandError) return false;
      throw error;
    }
  }
}
