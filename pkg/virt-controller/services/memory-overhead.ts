// How much memory a virt-launcher Pod needs on top of the guest's RAM: upstream's GetMemoryOverhead
// (pkg/hypervisor/kvm/hypervisorbackend.go), one term per line. The figures are upstream's estimates,
// not measurements of this port; keeping them makes Pods schedule exactly as they do upstream.
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { Quantity } from "../../defaults/quantity.js";
import { vcpuCountFromTopology, wantsGuaranteedQoS } from "../../vmitrait/vmitrait.js";
import { MiB, GiB, valueOf } from "../../util/quantity-math.js";

/** `ps` RSS upstream budgets per process of the launcher Pod. */
export const LauncherProcessOverhead = {
  virtLauncherMonitor: 25n * MiB,
  virtLauncher: 100n * MiB,
  virtlogd: 25n * MiB,
  virtqemud: 40n * MiB,
  /** qemu itself, minus the guest's RAM and page tables. */
  qemu: 50n * MiB,
} as const;

const PerVCPUOverhead = 8n * MiB;
const IOThreadOverhead = 8n * MiB;
const VideoRAMOverhead = 32n * MiB;
/** Two 64 MiB pflash devices of UEFI on aarch64. */
const Arm64FirmwareOverhead = 128n * MiB;
/** VFIO locks guest RAM plus the MMIO window (about 1 GiB on x86). */
const VFIOOverhead = 1n * GiB;
const DownwardMetricsOverhead = 1n * MiB;
/** virt-probe, once per exec probe, plus once for its binary. */
const ExecProbeOverhead = 10n * MiB;
const ExecProbeBinaryOverhead = 100n * MiB;
const SEVOverhead = 256n * MiB;
/** The swtpm process. */
const TPMOverhead = 53n * MiB;
const DedicatedCPUOverhead = 100n * MiB;

/** Go's ScaledValue(Kilo): thousands of bytes, rounded up. */
function kilos(bytes: bigint): bigint {
  return (bytes + 999n) / 1000n;
}

/** One bit for every 512 bytes of RAM, computed on the request rounded up to whole kilobytes. */
function pageTableOverhead(vmi: VirtualMachineInstance): bigint {
  const request = valueOf(vmi.spec.domain.resources?.requests?.["memory"]);
  return (kilos(request) * 1000n) / 512n;
}

/** vCPUs from the guest topology, else the CPU limit, else the CPU request; at least one. */
function vcpuCount(vmi: VirtualMachineInstance): bigint {
  const { cpu, resources } = vmi.spec.domain;
  let vcpus: bigint;
  if (cpu) vcpus = BigInt(vcpuCountFromTopology(cpu));
  else if (resources?.limits?.["cpu"] !== undefined) vcpus = valueOf(resources.limits["cpu"]);
  else vcpus = valueOf(resources?.requests?.["cpu"]);
  return vcpus < 1n ? 1n : vcpus;
}

function hasVFIODevice(vmi: VirtualMachineInstance): boolean {
  const devices = vmi.spec.domain.devices;
  return (
    (devices.hostDevices?.length ?? 0) > 0 ||
    (devices.gpus?.length ?? 0) > 0 ||
    (devices.interfaces ?? []).some((iface) => iface.sriov !== undefined)
  );
}

function execProbeOverhead(vmi: VirtualMachineInstance): bigint {
  const liveness = vmi.spec.livenessProbe?.exec !== undefined;
  const readiness = vmi.spec.readinessProbe?.exec !== undefined;
  let overhead = 0n;
  if (liveness) overhead += ExecProbeOverhead;
  if (readiness) overhead += ExecProbeOverhead;
  if (liveness || readiness) overhead += ExecProbeBinaryOverhead;
  return overhead;
}

const GoFloat = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Go's MultiplyMemory: adds (ratio - 1) × the overhead in whole kilobytes, truncated. */
function applyRatio(overhead: bigint, ratioText: string | undefined): bigint {
  // The webhook refuses a ratio that is no float; upstream then logs and keeps the plain overhead.
  if (ratioText === undefined || !GoFloat.test(ratioText)) return overhead;
  const ratio = Number(ratioText);
  const addition = Math.trunc(Number(kilos(overhead)) * (ratio - 1));
  return overhead + BigInt(addition) * 1000n;
}

/**
 * The memory overhead of a VMI's launcher Pod in bytes, as a DecimalSI quantity (the format upstream's sum
 * starts from). `cpuArch` is the VMI's architecture or the cluster's; `additionalOverheadRatio` the
 * KubeVirt CR's `additionalGuestMemoryOverheadRatio`.
 */
export function getMemoryOverhead(
  vmi: VirtualMachineInstance,
  cpuArch: string,
  additionalOverheadRatio?: string,
): Quantity {
  const { domain } = vmi.spec;
  const launchSecurity = domain.launchSecurity;
  const tpm = domain.devices.tpm;
  let overhead = pageTableOverhead(vmi);
  for (const processOverhead of Object.values(LauncherProcessOverhead)) overhead += processOverhead;
  overhead += PerVCPUOverhead * vcpuCount(vmi);
  overhead += IOThreadOverhead;
  if (domain.devices.autoattachGraphicsDevice !== false) overhead += VideoRAMOverhead;
  if (cpuArch === "arm64") overhead += Arm64FirmwareOverhead;
  if (hasVFIODevice(vmi)) overhead += VFIOOverhead;
  if ((vmi.spec.volumes ?? []).some((volume) => volume.downwardMetrics !== undefined)) {
    overhead += DownwardMetricsOverhead;
  }
  overhead += execProbeOverhead(vmi);
  if (launchSecurity?.sev !== undefined || launchSecurity?.snp !== undefined) overhead += SEVOverhead;
  if (tpm !== undefined && tpm.enabled !== false) overhead += TPMOverhead;
  if (domain.cpu?.dedicatedCpuPlacement === true || wantsGuaranteedQoS(vmi)) overhead += DedicatedCPUOverhead;
  overhead += valueOf(domain.memory?.reservedOverhead?.addedOverhead);
  // The ratio is applied last, to everything above.
  return Quantity.fromInteger(applyRatio(overhead, additionalOverheadRatio), "DecimalSI");
}
