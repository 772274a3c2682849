// The cloud-init and access-credential flags of `virtctl create vm` (upstream vm.go): a generated
// #cloud-config (user, password, SSH keys, letting the guest agent manage SSH) or the given base64
// data, in a NoCloud or ConfigDrive volume, and SSH keys or passwords injected from Secrets.
import type {
  AccessCredential,
  CloudInitNoCloudSource,
  SSHPublicKeyAccessCredentialPropagationMethod,
  VirtualMachine,
  Volume,
} from "../../../api/generated/v1.js";
import { readFileGo } from "../../../util/go-file-error.js";
import { flagError, mapParams, splitPrefixedName } from "../params/params.js";
import { accessCredential } from "./params.js";
import type { CreateVM } from "./state.js";
import { addVolume, templateSpec, volumeExists, volumeExistsMessage } from "./state.js";

export const USER_FLAG = "user";
export const PASSWORD_FILE_FLAG = "password-file";
export const SSH_KEY_FLAG = "ssh-key";
export const GA_MANAGE_SSH_FLAG = "ga-manage-ssh";
export const ACCESS_CRED_FLAG = "access-cred";
export const CLOUD_INIT_FLAG = "cloud-init";
export const CLOUD_INIT_USER_DATA_FLAG = "cloud-init-user-data";
export const CLOUD_INIT_NETWORK_DATA_FLAG = "cloud-init-network-data";

export const CLOUD_INIT_NO_CLOUD = "nocloud";
export const CLOUD_INIT_CONFIG_DRIVE = "configdrive";
export const CLOUD_INIT_NONE = "none";

const CLOUD_INIT_DISK = "cloudinitdisk";
const CLOUD_CONFIG_HEADER = "#cloud-config";
const USER_NOT_ALLOWED = "user cannot be specified with selected access credential type and method";

// --- --access-cred

export function withAccessCredential(state: CreateVM, vm: VirtualMachine): void {
  for (const text of state.accessCreds) {
    const src = mapParams(ACCESS_CRED_FLAG, text, accessCredential);
    if (src.src === "") throw flagError(ACCESS_CRED_FLAG, "src must be specified");
    let split: { prefix: string; name: string };
    try {
      split = splitPrefixedName(src.src);
    } catch (error) {
      throw flagError(ACCESS_CRED_FLAG, `src invalid: ${(error as Error).message}`);
    }
    if (split.prefix !== "") {
      throw flagError(ACCESS_CRED_FLAG, `not allowed to specify namespace of secret "${split.name}"`);
    }
    let credential: AccessCredential;
    switch (src.type.toLowerCase()) {
      case "ssh":
      case "":
        credential = sshCredential(state, src);
        break;
      case "password":
        credential = passwordCredential(src);
        break;
      default:
        throw flagError(
          ACCESS_CRED_FLAG,
          `invalid access credential type "${src.type}", supported values are: ssh, password`,
        );
    }
    (templateSpec(vm).accessCredentials ??= []).push(credential);
  }
}

type AccessCredentialParams = ReturnType<typeof mapParams<typeof accessCredential>>;

function sshCredential(state: CreateVM, src: AccessCredentialParams): AccessCredential {
  switch (src.method.toLowerCase()) {
    case "ga":
    case "": {
      const user = src.user || state.user;
      if (user === "") {
        throw flagError(
          ACCESS_CRED_FLAG,
          'user must be specified with access credential ssh method ga ("--user" flag or param "user")',
        );
      }
      // The guest agent may only write the keys when allowed to; allowed unless said otherwise.
      if (!state.changed.has(GA_MANAGE_SSH_FLAG)) {
        state.gaManageSSH = true;
        state.changed.add(GA_MANAGE_SSH_FLAG);
      }
      return sshPublicKey(src.src, { qemuGuestAgent: { users: [user] } });
    }
    case CLOUD_INIT_NO_CLOUD:
      return cloudInitSSH(state, src, CLOUD_INIT_NO_CLOUD, { noCloud: {} });
    case CLOUD_INIT_CONFIG_DRIVE:
      return cloudInitSSH(state, src, CLOUD_INIT_CONFIG_DRIVE, { configDrive: {} });
    default:
      throw flagError(
        ACCESS_CRED_FLAG,
        `invalid access credentials ssh method "${src.method}", supported values are: ga, nocloud, configdrive`,
      );
  }
}

/** Keys put in by cloud-init: the cloud-init data source has to be of the method's kind. */
function cloudInitSSH(
  state: CreateVM,
  src: AccessCredentialParams,
  expected: string,
  method: SSHPublicKeyAccessCredentialPropagationMethod,
): AccessCredential {
  if (src.user !== "") throw flagError(ACCESS_CRED_FLAG, USER_NOT_ALLOWED);
  if (!state.changed.has(CLOUD_INIT_FLAG)) {
    state.cloudInit = expected;
    state.changed.add(CLOUD_INIT_FLAG);
  }
  if (state.cloudInit.toLowerCase() !== expected) {
    throw flagError(
      ACCESS_CRED_FLAG,
      `method param and value passed to --${CLOUD_INIT_FLAG} have to match: ${expected} vs ${state.cloudInit}`,
    );
  }
  return sshPublicKey(src.src, method);
}

const sshPublicKey = (
  secretName: string,
  propagationMethod: SSHPublicKeyAccessCredentialPropagationMethod,
): AccessCredential => ({ sshPublicKey: { source: { secret: { secretName } }, propagationMethod } });

function passwordCredential(src: AccessCredentialParams): AccessCredential {
  if (src.method !== "" && src.method.toLowerCase() !== "ga") {
    throw flagError(
      ACCESS_CRED_FLAG,
      `invalid access credentials password method "${src.method}", supported values are: ga`,
    );
  }
  if (src.user !== "") throw flagError(ACCESS_CRED_FLAG, USER_NOT_ALLOWED);
  return {
    userPassword: { source: { secret: { secretName: src.src } }, propagationMethod: { qemuGuestAgent: {} } },
  };
}

// --- the cloud-init volume

const CLOUD_INIT_FLAGS = [
  USER_FLAG,
  PASSWORD_FILE_FLAG,
  SSH_KEY_FLAG,
  GA_MANAGE_SSH_FLAG,
  CLOUD_INIT_FLAG,
  CLOUD_INIT_USER_DATA_FLAG,
  CLOUD_INIT_NETWORK_DATA_FLAG,
];

/** Flags that only mean something in a data source: a warning when --cloud-init is none. */
const DATA_SOURCE_FLAGS = [
  PASSWORD_FILE_FLAG,
  SSH_KEY_FLAG,
  GA_MANAGE_SSH_FLAG,
  CLOUD_INIT_USER_DATA_FLAG,
  CLOUD_INIT_NETWORK_DATA_FLAG,
];

export function cloudInitConfig(state: CreateVM, vm: VirtualMachine): void {
  if (!CLOUD_INIT_FLAGS.some((flag) => state.changed.has(flag))) return;
  if (state.changed.has(PASSWORD_FILE_FLAG)) {
    state.warn(
      `WARNING: --${PASSWORD_FILE_FLAG}: The password is stored in cleartext in the VM definition!\n`,
    );
  }
  if (volumeExists(vm, CLOUD_INIT_DISK)) throw new Error(volumeExistsMessage(CLOUD_INIT_DISK));
  let source: Omit<Volume, "name">;
  switch (state.cloudInit.toLowerCase()) {
    case CLOUD_INIT_NO_CLOUD:
      source = { cloudInitNoCloud: dataSource(state) };
      break;
    case CLOUD_INIT_CONFIG_DRIVE:
      source = { cloudInitConfigDrive: dataSource(state) };
      break;
    case CLOUD_INIT_NONE:
      if (DATA_SOURCE_FLAGS.some((flag) => state.changed.has(flag))) {
        // Upstream's warning, without a line end.
        state.warn(
          `WARNING: --${CLOUD_INIT_FLAG}: was set to none, not creating a data source although other cloud-init options were set`,
        );
      }
      return;
    default:
      throw flagError(
        CLOUD_INIT_FLAG,
        `invalid cloud-init data source type "${state.cloudInit}", supported values are: nocloud, configdrive, none`,
      );
  }
  const data = source.cloudInitNoCloud ?? source.cloudInitConfigDrive;
  // A bare header is left out unless a data source was asked for.
  const empty = data?.userData === CLOUD_CONFIG_HEADER && !data.networkDataBase64;
  if (empty && !state.changed.has(CLOUD_INIT_FLAG)) return;
  addVolume(vm, { name: CLOUD_INIT_DISK, ...source });
}

/** NoCloud and ConfigDrive take the same fields here. */
function dataSource(state: CreateVM): CloudInitNoCloudSource {
  const source: CloudInitNoCloudSource = {};
  if (state.cloudInitNetworkData !== "") source.networkDataBase64 = state.cloudInitNetworkData;
  if (state.cloudInitUserData !== "") source.userDataBase64 = state.cloudInitUserData;
  else source.userData = cloudConfig(state);
  return source;
}

function cloudConfig(state: CreateVM): string {
  let config = CLOUD_CONFIG_HEADER;
  if (state.user !== "") config += `\nuser: ${state.user}`;
  if (state.passwordFile !== "") {
    let password: string;
    try {
      password = readFileGo(state.passwordFile).toString("utf8").trim();
    } catch (error) {
      throw flagError(PASSWORD_FILE_FLAG, (error as Error).message);
    }
    if (password !== "") config += `\npassword: ${password}\nchpasswd: { expire: False }`;
  }
  if (state.sshKeys.length > 0)
    config += `\nssh_authorized_keys:${state.sshKeys.map((key) => `\n  - ${key}`).join("")}`;
  if (state.gaManageSSH) config += "\nruncmd:\n  - [ setsebool, -P, 'virt_qemu_ga_manage_ssh', 'on' ]";
  return config;
}
