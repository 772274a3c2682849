// Errors of the libvirt client. LibvirtError is what the daemon reported (virterror fields);
// the others are client-side conditions.
import { VirErrorDomain, VirErrorNumber } from "./generated/libvirt-api.js";
import type { VirNetMessageError } from "./generated/virnet-protocol.js";
import { enumName } from "./xdr.js";

/** An error the libvirt daemon returned for a call (libvirt's virError). */
export class LibvirtError extends Error {
  /** virErrorNumber, e.g. 42 (VIR_ERR_NO_DOMAIN). */
  readonly code: number;
  /** virErrorDomain: which part of libvirt raised it, e.g. 10 (VIR_FROM_QEMU). */
  readonly domain: number;
  /** virErrorLevel: 1 warning, 2 error. */
  readonly level: number;
  /** Symbolic names of code and domain when this client knows them. */
  readonly codeName: string | undefined;
  readonly domainName: string | undefined;
  /** Extra details libvirt fills for some errors. */
  readonly str1: string | null;
  readonly str2: string | null;
  readonly str3: string | null;
  readonly int1: number;
  readonly int2: number;

  constructor(error: VirNetMessageError, procedure: string) {
    super(error.message ?? `libvirt error ${error.code} from ${procedure}`);
    this.name = "LibvirtError";
    this.code = error.code;
    this.domain = error.domain;
    this.level = error.level;
    this.codeName = enumName(VirErrorNumber, error.code);
    this.domainName = enumName(VirErrorDomain, error.domain);
    this.str1 = error.str1;
    this.str2 = error.str2;
    this.str3 = error.str3;
    this.int1 = error.int1;
    this.int2 = error.int2;
  }
}

/** The daemon sent something this client cannot make sense of; the connection is closed. */
export class LibvirtProtocolError extends Error {
  override name = "LibvirtProtocolError";
}

/** The call or feature is not implemented by this client yet. */
export class LibvirtNotSupportedError extends Error {
  override name = "LibvirtNotSupportedError";
}

/** The connection closed before the call was answered (or the call was made after it closed). */
export class LibvirtConnectionClosedError extends Error {
  override name = "LibvirtConnectionClosedError";
}
