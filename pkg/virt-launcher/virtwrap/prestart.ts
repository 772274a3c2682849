// Everything the pod must hold before QEMU starts (upstream manager.preStartHook and
// startDomain's cloud-init step): containerDisk overlays, overlays of ephemeral volumes, emptyDisk images,
// the ISOs of config volumes, the per-VMI private dir for the console socket, the cloud-init ISO and the
// DHCP servers of the pod network.
import { statSync } from "node:fs";
import { chmod, mkdir } from "node:fs/promises";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { CloudInitData } from "../../cloud-init/cloud-init.js";
import { generateLocalData, readCloudInitVolumeDataSource } from "../../cloud-init/cloud-init.js";
import type { IsoCreationFunc, IsoFromFilesFunc } from "../../cloud-init/iso.js";
import { createConfigDisks } from "../../config/config-disks.js";
import { containerDiskFormats, createEphemeralImages } from "../../container-disk/container-disk.js";
import type { Logger } from "../../controller/log.js";
import { EmptyDiskCreator } from "../../ephemeral-disk/empty-disk.js";
import { EphemeralDiskCreator } from "../../ephemeral-disk/ephemeral-disk.js";
import type { VirtualMachineOptions } from "../../handler-launcher-com/cmd/v1/messages.js";
import type { DhcpServer } from "../../network/dhcp/server.js";
import type { DhcpServerConfig } from "../../network/dhcp/server-config.js";
import { errorMessage } from "../../util/error-message.js";
import type { QemuIdentity } from "../libvirtd/identity.js";
import type { LauncherLayout } from "../layout.js";
import {
  cloudInitDir,
  emptyDiskDir,
  ephemeralDiskDataDir,
  secretSourceDir,
  vmiPrivateDir,
} from "../layout.js";
import type { DomainSpec } from "./api/schema.js";
import type { LauncherConverterInputs } from "./converter-context.js";
import { blockClaimVolumes } from "./converter-context.js";
import type { DomainPreparation } from "./manager.js";
import type { PodInterface } from "./network/pod-network.js";
import { interfacePlumbing, readPodInterfaces, startDhcpServers } from "./network/pod-network.js";
import { pvcBackingFile } from "./pvc-backing.js";

export interface PreparationOptions {
  layout: LauncherLayout;
  identity: QemuIdentity;
  log: Logger;
  startDhcpServer: (config: DhcpServerConfig) => Promise<DhcpServer>;
  isoFunc?: IsoCreationFunc;
  /** Builds the config volumes' ISOs; absent: xorrisofs or genisoimage. */
  configIsoFunc?: IsoFromFilesFunc;
  /** Whether a path is a block device (a Block PVC's node); absent: stat. */
  blockDevice?: (path: string) => Promise<boolean>;
  resolvConfPath?: string;
}

/** Whether QEMU's user may open a device node read-write (it keeps only its primary group). */
export function deviceUsableBy(path: string, uid: number, gid: number): boolean {
  try {
    const { mode, uid: owner, gid: group } = statSync(path);
    if (uid === 0) return true;
    if (owner === uid) return (mode & 0o600) === 0o600;
    if (group === gid) return (mode & 0o060) === 0o060;
    return (mode & 0o006) === 0o006;
  } catch {
    return false;
  }
}

export class LauncherDomainPreparation implements DomainPreparation {
  private podInterfaces: PodInterface[] = [];
  private cloudInitData: CloudInitData | undefined;
  private readonly dhcpServers: DhcpServer[] = [];
  private readonly overlays: EphemeralDiskCreator;
  private readonly emptyDisks: EmptyDiskCreator;
  private formats = new Map<string, string>();

  constructor(private readonly options: PreparationOptions) {
    this.overlays = new EphemeralDiskCreator(
      ephemeralDiskDataDir(options.layout),
      options.identity.ownership,
    );
    this.emptyDisks = new EmptyDiskCreator(emptyDiskDir(options.layout), options.identity.ownership);
  }

  async converterInputs(
    vmi: VirtualMachineInstance,
    allowEmulation: boolean,
    options: VirtualMachineOptions | null,
  ): Promise<LauncherConverterInputs> {
    const { layout, identity } = this.options;
    this.formats = await containerDiskFormats(vmi, layout.containerDiskDir, options?.DisksInfo ?? {});
    this.podInterfaces = await readPodInterfaces(vmi, layout.privateDir);
    return {
      allowEmulation,
      hypervisorDeviceAvailable: deviceUsableBy("/dev/kvm", identity.uid, identity.gid),
      containerDiskFormats: this.formats,
      interfaces: interfacePlumbing(this.podInterfaces),
      blockVolumes: blockClaimVolumes(vmi, layout),
      options,
    };
  }

  async beforeDefine(vmi: VirtualMachineInstance): Promise<void> {
    const { layout, identity } = this.options;
    // QEMU creates the serial console socket here.
    const privateDir = vmiPrivateDir(layout, vmi.metadata?.uid ?? "");
    await mkdir(privateDir, { recursive: true });
    await chmod(privateDir, 0o755);
    await identity.ownership.setFileOwnership(privateDir);
    await this.overlays.init();
    await createEphemeralImages(vmi, layout.containerDiskDir, this.overlays, this.formats);
    await this.overlays
      .createEphemeralImages(vmi, (volume) => pvcBackingFile(layout, volume, this.options.blockDevice))
      .catch((error: unknown) => {
        throw new Error(`preparing ephemeral images failed: ${errorMessage(error)}`, { cause: error });
      });
    await this.emptyDisks.createTemporaryDisks(vmi);
    await createConfigDisks(vmi, {
      layout,
      ownership: identity.ownership,
      ...(this.options.configIsoFunc ? { isoFunc: this.options.configIsoFunc } : {}),
    });
    this.cloudInitData = await readCloudInitVolumeDataSource(vmi, secretSourceDir(layout));
  }

  async beforeStart(vmi: VirtualMachineInstance, spec: DomainSpec): Promise<void> {
    const { layout, identity, log } = this.options;
    if (this.cloudInitData) {
      const iso = await generateLocalData(vmi, this.cloudInitData, {
        localDir: cloudInitDir(layout),
        ownership: identity.ownership,
        ...(this.options.isoFunc ? { isoFunc: this.options.isoFunc } : {}),
      });
      log.info({ iso }, "generated cloud-init iso");
    }
    const started = await startDhcpServers(vmi, spec, this.podInterfaces, {
      privateDir: layout.privateDir,
      log,
      start: this.options.startDhcpServer,
      ...(this.options.resolvConfPath ? { resolvConfPath: this.options.resolvConfPath } : {}),
    });
    this.dhcpServers.push(...started);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.dhcpServers.splice(0).map((server) => server.close()));
  }
}
