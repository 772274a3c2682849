// An in-memory launcher for virt-handler's controller tests: it defines a running domain on
// SyncVirtualMachine, records every command, and keeps what the migration commands were given.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { GuestAgentInfo } from "../../api/guest-agent-info.js";
import type { DomainObject } from "../../virt-launcher/virtwrap/api/domain-object.js";
import type { LauncherCommands } from "../launcher-clients.js";

/** A launcher that defines a running domain on SyncVirtualMachine and records every command. */
export class FakeLauncher implements LauncherCommands {
  constructor(readonly calls: string[] = []) {}
  domain: DomainObject | undefined;
  synced: VirtualMachineInstance[] = [];
  async syncVirtualMachine(vmi: VirtualMachineInstance) {
    this.calls.push("SyncVirtualMachine");
    this.synced.push(vmi);
    this.domain ??= {
      objectMeta: { name: "default_testvmi", namespace: "default" },
      spec: { devices: {} },
      status: { status: "Running", reason: "Unknown" },
    } as unknown as DomainObject;
  }
  async shutdownVirtualMachine() {
    this.calls.push("Shutdown");
  }
  async killVirtualMachine() {
    this.calls.push("Kill");
  }
  async pauseVirtualMachine() {
    this.calls.push("Pause");
  }
  async unpauseVirtualMachine() {
    this.calls.push("Unpause");
  }
  async freezeVirtualMachine() {
    this.calls.push("Freeze");
  }
  async unfreezeVirtualMachine() {
    this.calls.push("Unfreeze");
  }
  async softRebootVirtualMachine() {
    this.calls.push("SoftReboot");
  }
  async resetVirtualMachine() {
    this.calls.push("Reset");
  }
  async deleteDomain() {
    this.calls.push("DeleteDomain");
  }
  /** The options of each MigrateVirtualMachine, in order. */
  migrations: object[] = [];
  /** Thrown by the next migration command, once. */
  failNext: Error | undefined;
  private failOnce(): void {
    const error = this.failNext;
    this.failNext = undefined;
    if (error) throw error;
  }
  async migrateVirtualMachine(_vmi: VirtualMachineInstance, options: object) {
    this.calls.push("Migrate");
    this.failOnce();
    this.migrations.push(options);
  }
  async syncMigrationTarget() {
    this.calls.push("SyncMigrationTarget");
    this.failOnce();
  }
  async cancelVirtualMachineMigration() {
    this.calls.push("CancelMigration");
    this.failOnce();
  }
  async finalizeVirtualMachineMigration() {
    this.calls.push("FinalizeMigration");
  }
  async signalTargetPodCleanup() {
    this.calls.push("SignalTargetPodCleanup");
    this.failOnce();
  }
  async getDomain() {
    return this.domain;
  }
  async getScreenshot() {
    this.calls.push("GetScreenshot");
    return { mime: "image/png", data: Buffer.alloc(0) };
  }
  guestInfo: GuestAgentInfo = {};
  async getGuestInfo() {
    this.calls.push("GetGuestInfo");
    return this.guestInfo;
  }
  async getUsers() {
    return { items: [] };
  }
  async getFilesystems() {
    return { items: [] };
  }
  close() {}
}
