// The parameters each `virtctl create vm` flag takes (upstream pkg/virtctl/create/vm/params.go), in
// upstream's field order: it is the order the usage text lists them and their values are checked.
import type { ParamTable } from "../params/params.js";

export const accessCredential = {
  type: "string",
  src: "string",
  method: "string",
  user: "string",
} as const satisfies ParamTable;

export const volumeSource = {
  name: "string",
  src: "string",
  bootorder: "uint",
} as const satisfies ParamTable;

export const sysprepVolumeSource = { src: "string", type: "string" } as const satisfies ParamTable;

/** The pvc, snapshot and ds import types. */
export const dataVolumeSource = {
  name: "string",
  src: "string",
  size: "quantity",
  type: "string",
  bootorder: "uint",
} as const satisfies ParamTable;

const sized = { size: "quantity", type: "string", name: "string", bootorder: "uint" } as const;

export const dataVolumeSourceBlank = sized satisfies ParamTable;

export const dataVolumeSourceGcs = {
  secretref: "string",
  url: "string",
  ...sized,
} as const satisfies ParamTable;

export const dataVolumeSourceHTTP = {
  certconfigmap: "string",
  extraheaders: "strings",
  secretextraheaders: "strings",
  secretref: "string",
  url: "string",
  ...sized,
} as const satisfies ParamTable;

export const dataVolumeSourceImageIO = {
  certconfigmap: "string",
  diskid: "string",
  secretref: "string",
  url: "string",
  ...sized,
} as const satisfies ParamTable;

export const dataVolumeSourceRegistry = {
  certconfigmap: "string",
  imagestream: "string",
  pullmethod: "string",
  secretref: "string",
  url: "string",
  ...sized,
} as const satisfies ParamTable;

export const dataVolumeSourceS3 = {
  certconfigmap: "string",
  secretref: "string",
  url: "string",
  ...sized,
} as const satisfies ParamTable;

export const dataVolumeSourceVDDK = {
  backingfile: "string",
  initimageurl: "string",
  secretref: "string",
  thumbprint: "string",
  url: "string",
  uuid: "string",
  ...sized,
} as const satisfies ParamTable;
