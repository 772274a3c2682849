// The kubevirt.io/v1 API's own defaulting of a VMI (upstream staging/.../core/v1/defaults.go and the
// generated SetObjectDefaults_VirtualMachineInstance): firmware UUID, ACPI and the other feature
// switches, clock timers, disk targets, CD-ROM tray, input devices and probes.
import type {
  CDRomTarget,
  Disk,
  FeatureHyperv,
  FeatureState,
  Features,
  Input,
  Probe,
  Timer,
  VirtualMachineInstanceSpec,
} from "../api/generated/v1.js";

export const DefaultSpinlockRetries = 4096;

function enableUnlessSet(state: FeatureState | undefined): void {
  if (state && (state.enabled === undefined || state.enabled === null)) state.enabled = true;
}

/** Timers say "present" where feature switches say "enabled". */
function setTimerDefaults(timer: Timer | undefined): void {
  if (!timer) return;
  for (const clockTimer of [timer.hpet, timer.kvm, timer.pit, timer.rtc, timer.hyperv]) {
    if (clockTimer && (clockTimer.present === undefined || clockTimer.present === null))
      clockTimer.present = true;
  }
}

function setHypervDefaults(hyperv: FeatureHyperv | undefined): void {
  if (!hyperv) return;
  const { relaxed, vapic, vpindex, runtime, synic, reset, frequencies, reenlightenment, ipi, evmcs } = hyperv;
  for (const state of [
    relaxed,
    vapic,
    vpindex,
    runtime,
    synic,
    reset,
    frequencies,
    reenlightenment,
    ipi,
    evmcs,
  ]) {
    enableUnlessSet(state);
  }
  if (hyperv.spinlocks) {
    enableUnlessSet(hyperv.spinlocks);
    if (hyperv.spinlocks.enabled === true && hyperv.spinlocks.spinlocks == null) {
      hyperv.spinlocks.spinlocks = DefaultSpinlockRetries;
    }
  }
  if (hyperv.synictimer) {
    enableUnlessSet(hyperv.synictimer);
    enableUnlessSet(hyperv.synictimer.direct);
  }
  enableUnlessSet(hyperv.vendorid);
  if (hyperv.tlbflush) {
    enableUnlessSet(hyperv.tlbflush);
    enableUnlessSet(hyperv.tlbflush.direct);
    enableUnlessSet(hyperv.tlbflush.extended);
  }
}

function setFeatureDefaults(features: Features): void {
  // ACPI is a plain struct upstream, so it is always there and on unless switched off.
  features.acpi ??= {};
  enableUnlessSet(features.acpi);
  enableUnlessSet(features.apic);
  setHypervDefaults(features.hyperv);
  enableUnlessSet(features.smm);
  enableUnlessSet(features.pvspinlock);
}

function setCDRomDefaults(cdrom: CDRomTarget): void {
  if (cdrom.readonly === undefined || cdrom.readonly === null) cdrom.readonly = true;
  if (!cdrom.tray) cdrom.tray = "closed";
}

function setDiskDefaults(disk: Disk): void {
  // A disk that names no target is a plain disk.
  if (!disk.disk && !disk.cdrom && !disk.lun) disk.disk = {};
  if (disk.cdrom) setCDRomDefaults(disk.cdrom);
  enableUnlessSet(disk.blockSize?.matchVolume);
}

function setInputDefaults(input: Input): void {
  if (!input.bus) input.bus = "usb";
  if (!input.type) input.type = "tablet";
}

/** Like the Kubernetes probe defaults: anything below the minimum becomes the default. */
export function setProbeDefaults(probe: Probe | undefined): void {
  if (!probe) return;
  if ((probe.timeoutSeconds ?? 0) < 1) probe.timeoutSeconds = 1;
  if ((probe.periodSeconds ?? 0) < 1) probe.periodSeconds = 10;
  if ((probe.successThreshold ?? 0) < 1) probe.successThreshold = 1;
  if ((probe.failureThreshold ?? 0) < 1) probe.failureThreshold = 3;
}

export function setObjectDefaults(spec: VirtualMachineInstanceSpec, newUUID: () => string): void {
  const domain = spec.domain;
  const firmware = (domain.firmware ??= {});
  if (!firmware.uuid) firmware.uuid = newUUID();
  setFeatureDefaults((domain.features ??= {}));
  setTimerDefaults(domain.clock?.timer);
  const devices = (domain.devices ??= {});
  for (const disk of devices.disks ?? []) setDiskDefaults(disk);
  for (const input of devices.inputs ?? []) setInputDefaults(input);
  for (const gpu of devices.gpus ?? []) enableUnlessSet(gpu.virtualGPUOptions?.display?.ramFB);
  setProbeDefaults(spec.readinessProbe);
  setProbeDefaults(spec.livenessProbe);
}
