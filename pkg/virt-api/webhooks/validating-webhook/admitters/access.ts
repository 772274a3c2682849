// Identity rules of a VMI spec (upstream vmi-create-admitter.go): access credentials name exactly one
// type, one source and one propagation method (whose volume must exist), and the service account name is
// a DNS subdomain matching any serviceAccount volume.
import type { AccessCredential, VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { goQuote } from "../../../../api/field.js";
import { invalidCause, type Path, type StatusCause } from "../../../../api/causes.js";
import { isDNS1123Subdomain } from "../../../../util/k8s-validation.js";

function exactlyOne(
  at: Path,
  kind: "sshPublicKey" | "userPassword",
  sources: number,
  methods: number,
): StatusCause[] {
  const causes: StatusCause[] = [];
  if (sources !== 1) {
    causes.push(invalidCause(`${at.toString()} must have exactly one source set`, at.child(kind, "source")));
  }
  if (methods !== 1) {
    causes.push(
      invalidCause(
        `${at.toString()} must have exactly one propagationMethod set`,
        at.child(kind, "propagationMethod"),
      ),
    );
  }
  return causes;
}

function validateSSHPublicKey(
  at: Path,
  credential: AccessCredential,
  volumes: { noCloud: boolean; configDrive: boolean },
): StatusCause[] {
  const ssh = credential.sshPublicKey;
  if (ssh === undefined) return [];
  const causes: StatusCause[] = [];
  const method = ssh.propagationMethod;
  const methodPath = at.child("sshPublicKey", "propagationMethod");
  let methods = 0;
  if (method.noCloud !== undefined) {
    methods++;
    if (!volumes.noCloud) {
      causes.push(
        invalidCause(
          `${at.toString()} requires a noCloud volume to exist when the noCloud propagationMethod is in use.`,
          methodPath,
        ),
      );
    }
  }
  if (method.configDrive !== undefined) {
    methods++;
    if (!volumes.configDrive) {
      causes.push(
        invalidCause(
          `${at.toString()} requires a configDrive volume to exist when the configDrive propagationMethod is in use.`,
          methodPath,
        ),
      );
    }
  }
  if (method.qemuGuestAgent !== undefined) {
    if (method.qemuGuestAgent.users.length === 0) {
      causes.push(
        invalidCause(
          `${at.toString()} requires at least one user to be present in the users list`,
          methodPath.child("qemuGuestAgent", "users"),
        ),
      );
    }
    methods++;
  }
  const sources = ssh.source.secret !== undefined ? 1 : 0;
  return [...causes, ...exactlyOne(at, "sshPublicKey", sources, methods)];
}

function validateUserPassword(at: Path, credential: AccessCredential): StatusCause[] {
  const password = credential.userPassword;
  if (password === undefined) return [];
  const sources = password.source.secret !== undefined ? 1 : 0;
  const methods = password.propagationMethod.qemuGuestAgent !== undefined ? 1 : 0;
  return exactlyOne(at, "userPassword", sources, methods);
}

export function validateAccessCredentials(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const volumes = spec.volumes ?? [];
  const present = {
    noCloud: volumes.some((volume) => volume.cloudInitNoCloud !== undefined),
    configDrive: volumes.some((volume) => volume.cloudInitConfigDrive !== undefined),
  };
  return (spec.accessCredentials ?? []).flatMap((credential, index) => {
    const at = field.index(index);
    const causes = [
      ...validateSSHPublicKey(at, credential, present),
      ...validateUserPassword(at, credential),
    ];
    const types = [credential.sshPublicKey, credential.userPassword].filter(
      (type) => type !== undefined,
    ).length;
    if (types !== 1)
      causes.push(invalidCause(`${at.toString()} must have exactly one access credential type set`, at));
    return causes;
  });
}

export function validateServiceAccountName(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const name = spec.serviceAccountName ?? "";
  if (name === "") return [];
  const causes: StatusCause[] = [];
  const at = field.child("serviceAccountName");
  const errors = isDNS1123Subdomain(name);
  if (errors.length > 0) {
    causes.push(
      invalidCause(`${at.toString()} is not a valid service account name: ${errors.join("; ")}`, at),
    );
  }
  // One mismatch is enough to report.
  const mismatch = (spec.volumes ?? []).find(
    (volume) => volume.serviceAccount !== undefined && volume.serviceAccount.serviceAccountName !== name,
  );
  if (mismatch !== undefined) {
    const other = mismatch.serviceAccount?.serviceAccountName ?? "";
    causes.push(
      invalidCause(
        `spec.serviceAccountName ${goQuote(name)} and serviceAccount volume ${goQuote(other)} must reference the same service account`,
        at,
      ),
    );
  }
  return causes;
}
