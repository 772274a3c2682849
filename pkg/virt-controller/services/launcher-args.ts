// virt-launcher-monitor's command line, as upstream's renderLaunchManifest builds it: what the launcher
// needs to know about its VMI, where the shared directories are, and which cluster-wide switches are on.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { FeatureGate } from "../../virt-config/featuregate/feature-gates.js";
import {
  CustomLibvirtLogFiltersAnnotation,
  DefaultGracePeriodSeconds,
  FuncTestLauncherFailFastAnnotation,
  KeepLauncherAfterFailureAnnotation,
} from "../../util/constants.js";
import { valueOf } from "../../util/quantity-math.js";
import type { RenderContext } from "./render-context.js";

export const LauncherMonitorCommand = "/usr/bin/virt-launcher-monitor";
/** Added to the VMI's grace period so virt-handler, not the kubelet, gets to shut the guest down. */
export const GracePeriodPaddingSeconds = 15;
/** Spreads the launchers' qemu timeouts so a mass start does not time out in lockstep. */
export const QemuTimeoutJitterRangeSeconds = 120;
/** Only KVM is supported until the ConfigurableHypervisor gate is. */
const Hypervisor = "kvm";

export function gracePeriodSeconds(vmi: VirtualMachineInstance): number {
  return vmi.spec.terminationGracePeriodSeconds ?? DefaultGracePeriodSeconds;
}

/** The grace period the launcher is told about: the VMI's plus the padding. */
export function launcherGracePeriodSeconds(vmi: VirtualMachineInstance): number {
  return gracePeriodSeconds(vmi) + GracePeriodPaddingSeconds;
}

/** Whether the annotation asks to keep a failed launcher around (any key starting with it, "" or "true…"). */
function keepsLauncherAfterFailure(vmi: VirtualMachineInstance): boolean {
  return Object.entries(vmi.metadata?.annotations ?? {}).some(
    ([key, value]) =>
      key.startsWith(KeepLauncherAfterFailureAnnotation) && (value === "" || value.startsWith("true")),
  );
}

/** `random` returns [0, 1); it only picks the qemu timeout jitter. */
export function launcherArgs(context: RenderContext, random: () => number): string[] {
  const { vmi, config, settings } = context;
  const qemuTimeout =
    settings.launcherQemuTimeoutSeconds + Math.floor(random() * QemuTimeoutJitterRangeSeconds);
  const diskMemoryLimit = valueOf(config.getConfig().developerConfiguration?.diskVerification?.memoryLimit);
  // prettier-ignore
  const args = [
    "--qemu-timeout", `${qemuTimeout}s`,
    "--name", vmi.metadata?.name ?? "",
    "--uid", vmi.metadata?.uid ?? "",
    "--namespace", vmi.metadata?.namespace ?? "",
    "--kubevirt-share-dir", settings.virtShareDir,
    "--ephemeral-disk-dir", settings.ephemeralDiskDir,
    "--container-disk-dir", settings.containerDiskDir,
    "--grace-period-seconds", String(launcherGracePeriodSeconds(vmi)),
    // Hook sidecars are refused by the webhook until they are supported.
    "--hook-sidecars", "0",
    "--ovmf-path", config.getOVMFPath(vmi.spec.architecture),
    "--disk-memory-limit", String(diskMemoryLimit),
    "--hypervisor", Hypervisor,
  ];
  if (context.nonRoot) args.push("--run-as-nonroot");
  if (config.isFeatureGateEnabled(FeatureGate.PodSecondaryInterfaceNamingUpgrade)) {
    args.push("--upgrade-ordinal-ifaces");
  }
  if (config.isFeatureGateEnabled(FeatureGate.VGPULiveMigration)) args.push("--vgpu-dedicated-hook");
  if (config.isFeatureGateEnabled(FeatureGate.VMStatsCollector)) args.push("--vm-stats-collector");
  if (config.isFeatureGateEnabled(FeatureGate.FirmwareAutoSelection)) args.push("--firmware-auto-selection");
  const logFilters = vmi.metadata?.annotations?.[CustomLibvirtLogFiltersAnnotation];
  if (logFilters !== undefined) args.push("--libvirt-log-filters", logFilters);
  if (config.allowEmulation()) args.push("--allow-emulation");
  if (keepsLauncherAfterFailure(vmi)) args.push("--keep-after-failure");
  if (vmi.metadata?.annotations?.[FuncTestLauncherFailFastAnnotation] !== undefined)
    args.push("--simulate-crash");
  return args;
}
