// Architecture rules (upstream pkg/virt-api/webhooks/{amd64,arm64,s390x}.go), checked on VMI creation
// once the architecture is defaulted: watchdogs, video models, and arm64's boot, CPU model, disk bus and
// sound limits. Also the launch security rules, which only amd64 and s390x know.
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import { FeatureGate } from "../../../../virt-config/featuregate/feature-gates.js";
import {
  CauseType,
  cause,
  invalidCause,
  notSupportedCause,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";

const VIDEO_MODELS: Readonly<Record<string, readonly string[]>> = {
  amd64: ["vga", "cirrus", "virtio", "ramfb", "bochs"],
  arm64: ["virtio", "ramfb"],
  s390x: ["virtio"],
};

function validateVideoType(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  architecture: string,
): StatusCause[] {
  const video = spec.domain.devices.video;
  if (video === undefined) return [];
  const type = video.type ?? "";
  if ((VIDEO_MODELS[architecture] ?? []).includes(type)) return [];
  return [
    notSupportedCause(
      `video model '${type}' is not supported on ${architecture} architecture`,
      field.child("domain", "devices", "video", "type"),
    ),
  ];
}

function validateAmd64(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const watchdog = spec.domain.devices.watchdog;
  if (watchdog !== undefined && (watchdog.i6300esb === undefined || watchdog.diag288 !== undefined)) {
    causes.push(
      notSupportedCause(
        "amd64 only supports I6300ESB watchdog device",
        field.child("domain", "devices", "watchdog"),
      ),
    );
  }
  return [...causes, ...validateVideoType(field, spec, "amd64")];
}

function validateS390x(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const watchdog = spec.domain.devices.watchdog;
  if (watchdog !== undefined && (watchdog.diag288 === undefined || watchdog.i6300esb !== undefined)) {
    causes.push(
      notSupportedCause(
        "s390x only supports Diag288 watchdog device",
        field.child("domain", "devices", "watchdog"),
      ),
    );
  }
  return [...causes, ...validateVideoType(field, spec, "s390x")];
}

const ARM64_DISK_BUSES = new Set(["", "virtio", "scsi"]);

function validateArm64(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const devices = spec.domain.devices;
  if (spec.domain.firmware?.bootloader?.bios !== undefined) {
    causes.push(
      notSupportedCause(
        "Arm64 does not support bios boot, please change to uefi boot",
        field.child("domain", "firmware", "bootloader", "bios"),
      ),
    );
  }
  const model = spec.domain.cpu?.model ?? "";
  if (model !== "" && model !== "host-passthrough") {
    causes.push(
      notSupportedCause(
        "currently, host-passthrough is the only model supported on Arm64",
        field.child("domain", "cpu", "model"),
      ),
    );
  }
  (devices.disks ?? []).forEach((disk, index) => {
    for (const target of ["disk", "cdrom", "lun"] as const) {
      const device = disk[target];
      if (device === undefined || ARM64_DISK_BUSES.has(device.bus ?? "")) continue;
      causes.push(
        notSupportedCause(
          "Arm64 not support this disk bus type, please use virtio or scsi",
          field.child("domain", "devices", "disks").index(index).child(target, "bus"),
        ),
      );
    }
  });
  if (devices.watchdog !== undefined) {
    causes.push(
      notSupportedCause("Arm64 not support Watchdog device", field.child("domain", "devices", "watchdog")),
    );
  }
  if (devices.sound !== undefined) {
    causes.push(
      notSupportedCause("Arm64 not support sound device", field.child("domain", "devices", "sound")),
    );
  }
  return [...causes, ...validateVideoType(field, spec, "arm64")];
}

/** Upstream's ValidateVirtualMachineInstancePerArch. */
export function validatePerArchitecture(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const architecture = spec.architecture ?? "";
  switch (architecture) {
    case "amd64":
      return validateAmd64(field, spec);
    case "s390x":
      return validateS390x(field, spec);
    case "arm64":
      return validateArm64(field, spec);
    default:
      return [invalidCause(`unsupported architecture: ${architecture}`, field.child("architecture"))];
  }
}

export function validateLaunchSecurity(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  if (spec.domain.launchSecurity === undefined) return [];
  const architecture = spec.architecture ?? "";
  if (architecture === "amd64") return validateAmd64LaunchSecurity(field, spec, config);
  if (architecture === "s390x") return validateS390xLaunchSecurity(field, config);
  return [
    invalidCause(`No launchSecurity support for architecture: ${architecture}`, field.child("architecture")),
  ];
}

function validateAmd64LaunchSecurity(
  field: Path,
  spec: VirtualMachineInstanceSpec,
  config: ClusterConfig,
): StatusCause[] {
  const launchSecurity = spec.domain.launchSecurity ?? {};
  const at = field.child("launchSecurity");
  const selected = [
    ...(launchSecurity.sev !== undefined ? ["SEV"] : []),
    ...(launchSecurity.snp !== undefined ? ["SNP"] : []),
    ...(launchSecurity.tdx !== undefined ? ["TDX"] : []),
  ];
  const type = selected[0];
  if (selected.length !== 1 || type === undefined) {
    return [cause(CauseType.Forbidden, "One and only one launchSecurity type can be set", at)];
  }
  const gate = type === "TDX" ? FeatureGate.WorkloadEncryptionTDX : FeatureGate.WorkloadEncryptionSEV;
  if (!config.isFeatureGateEnabled(gate)) {
    return [invalidCause(`${gate} feature gate is not enabled in kubevirt-config`, at)];
  }
  const causes: StatusCause[] = [];
  const smm = spec.domain.features?.smm;
  if (type === "TDX" && smm !== undefined && smm.enabled !== false) {
    causes.push(invalidCause("TDX does not work along with SMM", at));
  }
  const efi = spec.domain.firmware?.bootloader?.efi;
  if (efi === undefined) {
    causes.push(invalidCause(`${type} requires OVMF (UEFI)`, at));
  } else {
    if (type !== "TDX" && efi.secureBoot !== false) {
      causes.push(invalidCause(`${type} does not work along with SecureBoot`, at));
    }
    if (type !== "SEV" && efi.persistent === true) {
      causes.push(invalidCause(`${type} does not work along with Persistent EFI variables`, at));
    }
  }
  if (launchSecurity.sev?.attestation !== undefined && spec.startStrategy !== "Paused") {
    causes.push(invalidCause("SEV attestation requires VMI StartStrategy 'Paused'", at));
  }
  for (const iface of spec.domain.devices.interfaces ?? []) {
    if (iface.bootOrder !== undefined) {
      causes.push(invalidCause(`${type} does not work with bootable NICs: ${iface.name}`, at));
    }
  }
  return causes;
}

/** Upstream's ValidateLaunchSecurityS390x: IBM Secure Execution has no settings, only its gate. */
function validateS390xLaunchSecurity(field: Path, config: ClusterConfig): StatusCause[] {
  if (config.isFeatureGateEnabled(FeatureGate.SecureExecution)) return [];
  return [
    invalidCause(
      `${FeatureGate.SecureExecution} feature gate is not enabled in kubevirt-config`,
      field.child("launchSecurity"),
    ),
  ];
}
