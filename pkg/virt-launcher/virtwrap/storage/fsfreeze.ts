// Freezing and thawing the guest's filesystems (upstream virtwrap/storage/fsfreeze.go): both go through the guest agent, so a guest without one is
// refused by libvirt. A freeze arms a safety thaw after the caller's unfreeze timeout, in case the caller
// never comes back; an unfreeze (or a new freeze) disarms it.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Logger } from "../../../controller/log.js";
import { formatGoDuration } from "../../../util/go-duration.js";
import { FS_FROZEN, FS_THAWED } from "../api/domain-object.js";
import type { DomainConnection } from "../domain-connection.js";
import { domainName } from "../vmi-state.js";
import { readFSFreezeStatus } from "../agent-poller/agent-poller.js";

export type FreezeConnection = Pick<
  DomainConnection,
  "domainLookupByName" | "domainFSFreeze" | "domainFSThaw" | "qemuAgentCommand"
>;

export class FSFreezer {
  private safetyUnfreeze: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: FreezeConnection,
    private readonly log: Logger,
  ) {}

  /** Freezes unless already frozen; a timeout of 0 arms no safety thaw. */
  async freeze(vmi: VirtualMachineInstance, unfreezeTimeoutSeconds: number): Promise<void> {
    const name = domainName(vmi);
    let status: string;
    try {
      status = await readFSFreezeStatus(this.connection, name);
    } catch (error) {
      this.log.error({ name: vmi.metadata?.name, err: error }, "failed to get fs status before freeze vmi");
      throw error;
    }
    if (status === FS_FROZEN) return;
    const dom = await this.connection.domainLookupByName(name);
    await this.connection.domainFSFreeze(dom);
    this.cancelSafetyUnfreeze();
    if (unfreezeTimeoutSeconds !== 0) this.scheduleSafetyUnfreeze(vmi, unfreezeTimeoutSeconds);
  }

  /** Thaws unless the agent says the guest is thawed already (a thaw would run the guest's hooks again). */
  async unfreeze(vmi: VirtualMachineInstance): Promise<void> {
    this.cancelSafetyUnfreeze();
    const name = domainName(vmi);
    const status = await readFSFreezeStatus(this.connection, name).catch(() => undefined);
    if (status === FS_THAWED) return;
    const dom = await this.connection.domainLookupByName(name);
    await this.connection.domainFSThaw(dom);
  }

  private scheduleSafetyUnfreeze(vmi: VirtualMachineInstance, seconds: number): void {
    this.safetyUnfreeze = setTimeout(() => {
      this.safetyUnfreeze = undefined;
      this.log.warn(
        { name: vmi.metadata?.name },
        `Unfreeze was not called for vmi ${vmi.metadata?.name ?? ""} for more then ${formatGoDuration(seconds * 1000)}, initiating unfreeze`,
      );
      this.unfreeze(vmi).catch((error: unknown) =>
        this.log.error({ name: vmi.metadata?.name, err: error }, "Failed to unfreeze vmi"),
      );
    }, seconds * 1000);
    this.safetyUnfreeze.unref();
  }

  private cancelSafetyUnfreeze(): void {
    clearTimeout(this.safetyUnfreeze);
    this.safetyUnfreeze = undefined;
  }
}
