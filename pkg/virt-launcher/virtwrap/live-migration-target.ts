// The target launcher's side of a live migration (upstream live-migration-target.go): the pod is
// prepared as for a start (disk images, cloud-init, DHCP) but nothing is defined, since libvirt
// brings the domain over; the migration metadata starts; and the socket dir where QEMU listens for
// the incoming stream is made. Once the domain has arrived and resumed, the incoming-migration
// watch waits for libvirt's job to end and then records the end, which the domain notifier sends.
import { MigrationTransportUnix } from "../../util/constants.js";
import { join } from "node:path";
import { chmod, mkdir } from "node:fs/promises";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { Logger } from "../../controller/log.js";
import type { LibvirtClient } from "../../libvirt/client.js";
import * as libvirt from "../../libvirt/generated/libvirt-api.js";
import { VIR_DOMAIN_JOB_OPERATION_MIGRATION_IN } from "../../libvirt/migrate.js";
import type { Clock } from "./migration-monitor.js";
import { realClock } from "./migration-monitor.js";
import { setEndTimestamp } from "./migration-metadata.js";
import type { MetadataCache } from "./metadata-cache.js";
import { MIGRATION_PROXY_DIR } from "../../util/migration-proxy/keys.js";

/** Upstream canSourceMigrateOverUnixURI: the controller marked the VMI's migrations as over unix sockets. */
export function canSourceMigrateOverUnixURI(vmi: VirtualMachineInstance): boolean {
  return vmi.status?.migrationTransport === MigrationTransportUnix;
}

/** The VMI is paused (a Paused condition): the guest stays paused once it has arrived. */
export function isPausedVMI(vmi: VirtualMachineInstance): boolean {
  return (vmi.status?.conditions ?? []).some(
    (condition) => condition.type === "Paused" && condition.status === "True",
  );
}

/**
 * The dir QEMU's incoming stream listens in, owned by QEMU's user: upstream makes it for unix
 * transport; the legacy TCP proxies upstream starts otherwise are not ported (this port's pods
 * always migrate over unix sockets).
 */
export async function prepareMigrationSockets(
  vmi: VirtualMachineInstance,
  virtShareDir: string,
  setFileOwnership: (path: string) => Promise<void>,
  log: Logger,
): Promise<void> {
  if (!canSourceMigrateOverUnixURI(vmi)) {
    log.warn(
      "the source would migrate over TCP proxies, which kubevirt-ts does not build; using unix sockets",
    );
  }
  const dir = join(virtShareDir, MIGRATION_PROXY_DIR);
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  await setFileOwnership(dir);
}

export type IncomingJobConnection = Pick<LibvirtClient, "domainGetJobStats" | "domainLookupByName">;

/** Upstream's retry delays between rounds of polling, in ms. */
const RETRY_DELAYS_MS = [1000, 2000, 3000];
const POLL_INTERVAL_MS = 100;
const POLL_TIMEOUT_MS = 3000;

/** Whether an incoming migration job is still running on the domain; undefined when it cannot be read. */
async function incomingJobActive(connection: IncomingJobConnection, domainName: string): Promise<boolean> {
  const dom = await connection.domainLookupByName(domainName);
  const { type, params } = await connection.domainGetJobStats(dom, 0);
  return (
    type !== libvirt.VIR_DOMAIN_JOB_NONE && params["operation"] === VIR_DOMAIN_JOB_OPERATION_MIGRATION_IN
  );
}

/**
 * Upstream TargetMigrationMonitor: a migration is not over when the target resumes; once no incoming
 * migration job remains (or after the retries, to unblock the migration anyway) the end is recorded.
 */
export async function watchIncomingMigration(
  connection: IncomingJobConnection,
  domainName: string,
  metadata: MetadataCache,
  log: Logger,
  clock: Clock = realClock,
): Promise<void> {
  let done = false;
  for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length && !done; attempt++) {
    const deadline = clock.now() + POLL_TIMEOUT_MS;
    let failed = false;
    while (clock.now() <= deadline) {
      try {
        if (!(await incomingJobActive(connection, domainName))) {
          done = true;
          break;
        }
        failed = false;
      } catch (error) {
        // Upstream gives up this round on a lookup error but retries a job read; both end the same.
        log.info({ err: error }, "Failed to get domain job info");
        failed = true;
      }
      await clock.sleep(POLL_INTERVAL_MS);
    }
    const delay = RETRY_DELAYS_MS[attempt];
    if (!done && delay !== undefined) {
      log.info(
        failed
          ? "Polling libvirt failed, retrying after delay"
          : "A migration job is still active, retrying after delay",
      );
      await clock.sleep(delay);
    }
  }
  log.info(
    done
      ? "Incoming migration job completed, setting EndTimestamp"
      : "Error polling libvirt, setting EndTimestamp anyway to unblock migration",
  );
  setEndTimestamp(metadata, new Date(clock.now()));
}
