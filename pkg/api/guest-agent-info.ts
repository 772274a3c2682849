// The guest agent subresources' objects (v1.VirtualMachineInstanceGuestAgentInfo, ...GuestOSUserList,
// ...FileSystemList) as upstream's encoding/json writes them: Go's field order, `omitempty` fields left out
// when empty, plain structs always written, nil slices as null. Every hop (launcher, virt-handler,
// virt-api, virtctl) reads them with the schemas here and writes them with these functions, as each of
// upstream's hops unmarshals into and marshals the same Go structs; the generated schemas are not used
// because they take Go's `int` byte counts for 32-bit numbers and refuse Go's null slices.
import { goMarshal } from "../util/go-json.js";
import { z } from "zod";

export interface GuestOSInfo {
  name?: string;
  kernelRelease?: string;
  version?: string;
  prettyName?: string;
  versionId?: string;
  kernelVersion?: string;
  machine?: string;
  id?: string;
}

export interface GuestOSUser {
  userName: string;
  domain?: string;
  /** Seconds since the epoch, fractional. */
  loginTime?: number;
}

export interface FileSystemDisk {
  serial?: string;
  busType: string;
}

export interface FileSystem {
  diskName: string;
  mountPoint: string;
  fileSystemType: string;
  usedBytes: number;
  totalBytes: number;
  disk?: FileSystemDisk[];
}

export interface GuestAgentInfo {
  guestAgentVersion?: string;
  supportedCommands?: { name: string; enabled?: boolean }[];
  hostname?: string;
  os?: GuestOSInfo;
  timezone?: string;
  userList?: GuestOSUser[];
  fsInfo?: { disks: FileSystem[] | null };
  fsFreezeStatus?: string;
}

export interface GuestOSUserList {
  items: GuestOSUser[] | null;
}

export interface FileSystemList {
  items: FileSystem[] | null;
}

// Go's decoder leaves a field it does not find (or finds null) at its zero value, and ignores unknown ones.
const str = z
  .string()
  .nullish()
  .transform((value) => value ?? "");
const int = z
  .number()
  .int()
  .nullish()
  .transform((value) => value ?? 0);
/** An optional field, null read as absent. */
const opt = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

const GuestOSInfoWire = z.object({
  name: str,
  kernelRelease: str,
  version: str,
  prettyName: str,
  versionId: str,
  kernelVersion: str,
  machine: str,
  id: str,
});

const UserWire = z.object({
  userName: str,
  domain: str,
  loginTime: z
    .number()
    .nullish()
    .transform((value) => value ?? 0),
});

const FileSystemWire = z.object({
  diskName: str,
  mountPoint: str,
  fileSystemType: str,
  usedBytes: int,
  totalBytes: int,
  disk: opt(z.array(z.object({ serial: str, busType: str }))),
});

const nullableArray = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((value) => value ?? null);

/** v1.VirtualMachineInstanceGuestAgentInfo as JSON. */
export const GuestAgentInfoWire: z.ZodType<GuestAgentInfo> = z.object({
  guestAgentVersion: str,
  supportedCommands: opt(
    z.array(
      z.object({
        name: str,
        enabled: z
          .boolean()
          .nullish()
          .transform((value) => value ?? false),
      }),
    ),
  ),
  hostname: str,
  os: opt(GuestOSInfoWire),
  timezone: str,
  userList: opt(z.array(UserWire)),
  fsInfo: opt(z.object({ disks: nullableArray(FileSystemWire) })),
  fsFreezeStatus: str,
});

/** What the launcher's GetUsers and GetFilesystems answer: the bare arrays. */
export const GuestOSUserArrayWire: z.ZodType<GuestOSUser[] | null> = nullableArray(UserWire);
export const FileSystemArrayWire: z.ZodType<FileSystem[] | null> = nullableArray(FileSystemWire);
/** v1.VirtualMachineInstanceGuestOSUserList and ...FileSystemList as JSON. */
export const GuestOSUserListWire: z.ZodType<GuestOSUserList> = z.object({ items: nullableArray(UserWire) });
export const FileSystemListWire: z.ZodType<FileSystemList> = z.object({
  items: nullableArray(FileSystemWire),
});

/** Go's omitempty: a zero value leaves the key out. */
function omitEmpty<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(
      ([, value]) =>
        value !== undefined &&
        value !== null &&
        value !== "" &&
        value !== 0 &&
        value !== false &&
        !(Array.isArray(value) && value.length === 0),
    ),
  ) as Partial<T>;
}

function osInfoJSON(os: GuestOSInfo | undefined): GuestOSInfo {
  const { name, kernelRelease, version, prettyName, versionId, kernelVersion, machine, id } = os ?? {};
  return omitEmpty({ name, kernelRelease, version, prettyName, versionId, kernelVersion, machine, id });
}

function userJSON(user: GuestOSUser): GuestOSUser {
  return { userName: user.userName, ...omitEmpty({ domain: user.domain, loginTime: user.loginTime }) };
}

function fileSystemJSON(fs: FileSystem): FileSystem {
  const disk = (fs.disk ?? []).map((d) => ({ ...omitEmpty({ serial: d.serial }), busType: d.busType }));
  return {
    diskName: fs.diskName,
    mountPoint: fs.mountPoint,
    fileSystemType: fs.fileSystemType,
    usedBytes: fs.usedBytes,
    totalBytes: fs.totalBytes,
    ...omitEmpty({ disk }),
  };
}

export function guestAgentInfoJSON(info: GuestAgentInfo): object {
  return {
    ...omitEmpty({
      guestAgentVersion: info.guestAgentVersion,
      supportedCommands: info.supportedCommands?.map((command) => ({
        name: command.name,
        ...omitEmpty({ enabled: command.enabled }),
      })),
      hostname: info.hostname,
    }),
    os: osInfoJSON(info.os),
    ...omitEmpty({ timezone: info.timezone, userList: info.userList?.map(userJSON) }),
    fsInfo: { disks: info.fsInfo?.disks?.map(fileSystemJSON) ?? null },
    ...omitEmpty({ fsFreezeStatus: info.fsFreezeStatus }),
  };
}

/** A bare user array, as the launcher answers GetUsers. */
export function usersJSON(users: readonly GuestOSUser[] | null): object[] | null {
  return users?.map(userJSON) ?? null;
}

/** A bare filesystem array, as the launcher answers GetFilesystems. */
export function fileSystemsJSON(filesystems: readonly FileSystem[] | null): object[] | null {
  return filesystems?.map(fileSystemJSON) ?? null;
}

/** A list's TypeMeta is empty and left out; its ListMeta is an empty struct, written as {}. */
export function userListJSON(list: GuestOSUserList): object {
  return { metadata: {}, items: usersJSON(list.items) };
}

export function fileSystemListJSON(list: FileSystemList): object {
  return { metadata: {}, items: fileSystemsJSON(list.items) };
}

/** Go's json.MarshalIndent(v, "", indent), which also escapes <, > and & (and U+2028/9) inside strings. */
export function marshalIndent(value: unknown, indent = "  "): string {
  return goMarshal(value, indent);
}
