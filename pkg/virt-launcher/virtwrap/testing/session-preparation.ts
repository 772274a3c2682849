// The pod-side preparation a launcher does before a domain starts, as tests against a real session libvirtd
// need it: no container disks or interfaces, Block claims from the layout, and the per-VMI private dir (where
// QEMU puts its console sockets) owned by the daemon's user.
import { chownSync, mkdirSync } from "node:fs";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { LauncherLayout } from "../../layout.js";
import { vmiPrivateDir } from "../../layout.js";
import type { LauncherConverterInputs } from "../converter-context.js";
import { blockClaimVolumes } from "../converter-context.js";
import type { DomainPreparation } from "../manager.js";

export class SessionDaemonPreparation implements DomainPreparation {
  constructor(
    private readonly layout: LauncherLayout,
    private readonly daemonUID: number,
  ) {}

  converterInputs(vmi: VirtualMachineInstance): Promise<LauncherConverterInputs> {
    return Promise.resolve({
      allowEmulation: true,
      hypervisorDeviceAvailable: false,
      containerDiskFormats: new Map(),
      interfaces: new Map(),
      blockVolumes: blockClaimVolumes(vmi, this.layout),
      options: null,
    });
  }

  beforeDefine(vmi: VirtualMachineInstance): Promise<void> {
    const dir = vmiPrivateDir(this.layout, vmi.metadata?.uid ?? "");
    mkdirSync(dir, { recursive: true });
    chownSync(dir, this.daemonUID, this.daemonUID);
    return Promise.resolve();
  }

  beforeStart(): Promise<void> {
    return Promise.resolve();
  }
}
