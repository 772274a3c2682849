// The hostDisk step of starting a VMI (upstream BaseController.configureHostDisks): find the launcher
// pod and create the missing DiskOrCreate images in its root, sized by the cluster's PVC tolerances.
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { EventRecorder } from "../controller/events.js";
import { DiskImgCreator } from "../host-disk/disk-img-creator.js";
import { errorMessage } from "../util/error-message.js";
import type { ClusterConfig } from "../virt-config/cluster-config.js";
import type { PodIsolationDetector } from "./isolation/detector.js";

export interface HostDiskSetup {
  /** Rejects when an image could not be created; safe to run again (existing images are kept). */
  create(vmi: VirtualMachineInstance): Promise<void>;
}

export interface LauncherHostDisksOptions {
  detector: PodIsolationDetector;
  /** The cluster configuration in force, read on every VMI. */
  clusterConfig: () => Pick<ClusterConfig, "getLessPVCSpaceToleration" | "getMinimumReservePVCBytes">;
  recorder?: Pick<EventRecorder, "event">;
}

export class LauncherHostDisks implements HostDiskSetup {
  constructor(private readonly options: LauncherHostDisksOptions) {}

  async create(vmi: VirtualMachineInstance): Promise<void> {
    // Nothing to enter the pod for.
    if (!(vmi.spec.volumes ?? []).some((volume) => volume.hostDisk)) return;
    const { rootFs } = await this.options.detector.detect(vmi).catch((error: unknown) => {
      throw new Error(`failed to detect isolation for launcher pod: ${errorMessage(error)}`, {
        cause: error,
      });
    });
    const config = this.options.clusterConfig();
    const creator = new DiskImgCreator({
      mountRoot: rootFs,
      lessPVCSpaceToleration: config.getLessPVCSpaceToleration(),
      minimumPVCReserveBytes: config.getMinimumReservePVCBytes(),
      ...(this.options.recorder ? { recorder: this.options.recorder } : {}),
    });
    await creator.create(vmi).catch((error: unknown) => {
      throw new Error(`preparing host-disks failed: ${errorMessage(error)}`, { cause: error });
    });
  }
}
