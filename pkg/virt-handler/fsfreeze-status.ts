// The VMI's status.fsFreezeStatus from its domain (upstream vm.go updateFSFreezeStatus): the launcher's
// agent poller reports what guest-fsfreeze-status says; "frozen" is shown, "thawed" clears the field, and a
// domain that reports nothing (no agent, not polled yet) leaves it as it was.
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { FS_THAWED } from "../virt-launcher/virtwrap/api/domain-object.js";

export function fsFreezeStatus(
  current: string | undefined,
  domain: DomainObject | undefined,
): string | undefined {
  const reported = domain?.status.fsFreezeStatus;
  if (!reported) return current;
  return reported === FS_THAWED ? undefined : reported;
}
