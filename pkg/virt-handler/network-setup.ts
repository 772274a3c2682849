// The network step of starting a VMI (upstream BaseController.setupNetwork): find the launcher pod's
// namespaces, then run the pod network setup in them.
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { errorMessage } from "../util/error-message.js";
import { startupInterfaces, type LauncherNamespaces } from "../network/setup/netconf.js";
import type { PodIsolationDetector } from "./isolation/detector.js";

/** What the VMI controller needs from the network: prepare a VMI's pod, forget a VMI that is gone. */
export interface VMINetworkSetup {
  /** Rejects when the pod network could not be prepared; safe to run again. */
  setup(vmi: VirtualMachineInstance): Promise<void>;
  teardown(vmi: VirtualMachineInstance): Promise<void>;
}

export interface PodNetworkConfigurator {
  setup(vmi: VirtualMachineInstance, launcher: LauncherNamespaces): Promise<void>;
  teardown(vmi: VirtualMachineInstance): Promise<void>;
}

export class PodNetworkSetup implements VMINetworkSetup {
  constructor(
    private readonly detector: PodIsolationDetector,
    private readonly netConf: PodNetworkConfigurator,
  ) {}

  async setup(vmi: VirtualMachineInstance): Promise<void> {
    // No interface, nothing to enter the pod for (a VMI with autoattachPodInterface: false).
    if (startupInterfaces(vmi).length === 0) return;
    let launcher: LauncherNamespaces;
    try {
      launcher = await this.detector.detect(vmi);
    } catch (error) {
      throw new Error(`failed to detect isolation for launcher pod: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    await this.netConf.setup(vmi, launcher);
  }

  teardown(vmi: VirtualMachineInstance): Promise<void> {
    return this.netConf.teardown(vmi);
  }
}
