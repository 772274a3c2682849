// The libvirt calls the domain manager makes, as a narrow interface over pkg/libvirt's client, so
// that the manager's logic is tested against a fake.
import type { LibvirtClient } from "../../libvirt/client.js";
import { LibvirtError } from "../../libvirt/errors.js";
import { VIR_ERR_NO_DOMAIN } from "../../libvirt/generated/libvirt-api.js";

export type DomainConnection = Pick<
  LibvirtClient,
  | "connectListAllDomains"
  | "domainAbortJob"
  | "domainAttachDeviceFlags"
  | "domainCreateWithFlags"
  | "domainDefineXML"
  | "domainDestroyFlags"
  | "domainDetachDeviceFlags"
  | "domainFSFreeze"
  | "domainFSThaw"
  | "domainGetJobInfo"
  | "domainGetJobStats"
  | "domainGetState"
  | "domainGetXMLDesc"
  | "domainLookupByName"
  | "domainMigrateStartPostCopy"
  | "domainMigrateToURI3"
  | "domainReboot"
  | "domainReset"
  | "domainResume"
  | "domainScreenshot"
  | "domainSetTime"
  | "domainShutdownFlags"
  | "domainSuspend"
  | "domainUndefineFlags"
  | "getVersion"
  | "qemuAgentCommand"
>;

/** libvirt says there is no such domain (upstream domainerrors.IsNotFound). */
export function isNotFound(error: unknown): boolean {
  return error instanceof LibvirtError && error.code === VIR_ERR_NO_DOMAIN;
}
