import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { isAlreadyExists, isForbidden } from "../../../pkg/controller/api-error.js";
import { errorMessage } from "../../../pkg/util/error-message.js";
import { Backoff } from "./backoff.js";
import type { EventType, InvolvedObject } from "./events.js";
import type { KubeClient } from "./kube-client.js";
import type { PersistentVolume } from "./k8s-types.js";
import type { Logger } from "./logger.js";
import type { LoopDeviceTools } from "./loop-device-wipe.js";
import type { LoopDeviceRecord } from "./loop-device-record.js";

// The local-block PVs of this node offered again once their claim is gone, as
// sig-storage-local-static-provisioner's DaemonSet does for the local volumes it discovered: its deleter
// cleans a Released PV's device and deletes the PV, and its next discovery pass creates the PV again,
// Available under the same name. Here the volumes are the loop devices `make up` attached and recorded
// (deploy/local/cluster/loop-devices.ts, .local/loop-devices.json) and their PVs the ones it applied
// (deploy/local/cluster/local-block-storage.ts); the "discovery" re-creates the deleted PV from its own
// spec without the claimRef and status.
//
// Level-triggered, every 10 s (the provisioner's default --discovery-period): list this node's PVs by
// label; for each Released one whose device the record names for this node and which is still backed by
// the recorded file, wipe the device (loop-device-wipe.ts), keep the PV to re-create in the state
// directory, delete the PV (preconditions: the UID and resourceVersion listed), and once it is gone
// create it again. A PV whose device the record does not name is never wiped.
//
// Unlike the provisioner, which cleans only PVs whose reclaim policy is Delete (it leaves Retain ones be,
// as the PV controller does), every labelled PV is recycled: they are Retain so that
// kube-controller-manager, which has no deleter for `local` volumes, leaves them alone.
//
// Events on the PV use the provisioner's reasons (pkg/common/common.go, copied there from
// k8s.io/kubernetes/pkg/controller/volume/events): VolumeDelete (Normal) when a cleanup starts,
// VolumeFailedDelete (Warning) when it, or the deletion, fails, or when the device is refused.

export const LOCAL_BLOCK_LABEL = "kubevirt-ts.io/local-block";
export const RECYCLE_INTERVAL_MS = 10_000;
/** The source component of the recycler's events. */
export const RECYCLER_COMPONENT = "kvts-local-block-recycler";
export const EVENT_VOLUME_DELETE = "VolumeDelete";
export const EVENT_VOLUME_FAILED_DELETE = "VolumeFailedDelete";
/** Set by the PV controller when it binds a PV; a new PV is not bound. */
const BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";

export function localBlockPVName(record: Pick<LoopDeviceRecord, "node" | "index">): string {
  return `local-block-${record.node}-${record.index}`;
}

/** The PV to create again: its labels, annotations and spec, without the binding, status and server fields. */
export function recreatedPV(pv: PersistentVolume): Record<string, unknown> {
  const { claimRef: _claimRef, ...spec } = pv.spec ?? {};
  const annotations = Object.fromEntries(
    Object.entries(pv.metadata.annotations ?? {}).filter(([key]) => key !== BOUND_BY_CONTROLLER),
  );
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: {
      name: pv.metadata.name,
      ...(pv.metadata.labels ? { labels: pv.metadata.labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec,
  };
}

/** A PV deleted (or about to be) and not yet created again; kept as a file so a restart finishes it. */
const pendingSchema = z.object({
  name: z.string(),
  /** The deleted PV's UID: a PV by that name with another UID is already the new one. */
  oldUid: z.string(),
  device: z.string(),
  pv: z.record(z.string(), z.unknown()),
});
type Pending = z.infer<typeof pendingSchema>;

export interface RecyclerEvents {
  recordFor(involved: InvolvedObject, type: EventType, reason: string, message: string): void;
}

export interface LocalBlockRecyclerOptions {
  node: string;
  client: KubeClient;
  /** The loop-device record, read on every pass (`up` writes it after the agents start). */
  records: () => Promise<LoopDeviceRecord[]>;
  devices: LoopDeviceTools;
  events: RecyclerEvents;
  /** Where the PVs to create again are kept across restarts (under the agent's state directory). */
  pendingDir: string;
  log: Logger;
  now?: () => number;
  intervalMs?: number;
}

const involved = (pv: PersistentVolume): InvolvedObject => ({
  apiVersion: "v1",
  kind: "PersistentVolume",
  name: pv.metadata.name,
  uid: pv.metadata.uid,
});

export class LocalBlockRecycler {
  private readonly now: () => number;
  /** Back-off between attempts on a PV whose cleanup or deletion failed, 10 s doubling to 5 min. */
  private readonly backoff: Backoff;
  private readonly failedAt = new Map<string, number>();
  /** Refusals already logged (a refused PV stays Released, and is looked at every pass). */
  private readonly refusalsLogged = new Set<string>();
  private forbiddenLogged = false;

  constructor(private readonly options: LocalBlockRecyclerOptions) {
    this.now = options.now ?? Date.now;
    this.backoff = new Backoff(10_000, 300_000, this.now);
  }

  private get log(): Logger {
    return this.options.log;
  }

  /** One pass: recycle the Released PVs, then create again those deleted and gone. */
  async sync(): Promise<void> {
    const { node, client } = this.options;
    const records = (await this.options.records()).filter((record) => record.node === node);
    const pvs = await client.listPersistentVolumes(`${LOCAL_BLOCK_LABEL}=${node}`);
    for (const pv of pvs) {
      // the selector already says so; a PV of another node or without the label is never touched
      if (pv.metadata.labels?.[LOCAL_BLOCK_LABEL] !== node) continue;
      if (pv.status?.phase !== "Released" || pv.metadata.deletionTimestamp) continue;
      await this.recycle(pv, records);
    }
    await this.createPending(records);
  }

  /** Runs a pass every interval until `signal` aborts; a failed pass is logged and the next one retries. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.sync();
        this.forbiddenLogged = false;
      } catch (err) {
        if (isForbidden(err)) {
          // the node's RBAC (local-block-storage.ts's ClusterRole per node) comes with `make up`
          if (!this.forbiddenLogged) {
            this.log.warn({ err }, "local-block recycler: forbidden; `make up` grants this node its PVs");
          }
          this.forbiddenLogged = true;
        } else {
          this.log.error({ err }, "local-block recycler pass failed");
        }
      }
      await sleep(this.options.intervalMs ?? RECYCLE_INTERVAL_MS, undefined, { signal }).catch(() => {});
    }
  }

  private refuse(pv: PersistentVolume, message: string): void {
    const key = `${pv.metadata.uid}\u0000${message}`;
    if (!this.refusalsLogged.has(key)) {
      this.refusalsLogged.add(key);
      this.log.warn({ pv: pv.metadata.name }, `local-block recycler: ${message}`);
    }
    this.options.events.recordFor(involved(pv), "Warning", EVENT_VOLUME_FAILED_DELETE, message);
  }

  private failed(pv: PersistentVolume, message: string, err: unknown): void {
    const uid = pv.metadata.uid;
    this.backoff.next(uid, this.now());
    this.failedAt.set(uid, this.now());
    this.log.error({ err, pv: pv.metadata.name, retryInMs: this.backoff.get(uid) }, message);
    this.options.events.recordFor(involved(pv), "Warning", EVENT_VOLUME_FAILED_DELETE, message);
  }

  private async recycle(pv: PersistentVolume, records: readonly LoopDeviceRecord[]): Promise<void> {
    const { node, devices, client } = this.options;
    const name = pv.metadata.name;
    const uid = pv.metadata.uid;
    const device = pv.spec?.local?.path;
    const record = records.find((r) => r.device === device);
    if (!device || !record || localBlockPVName(record) !== name) {
      this.refuse(
        pv,
        `Error cleaning PV "${name}": device ${device ?? "(none)"} is not the one the loop-device record names for it on node ${node}; not wiped`,
      );
      return;
    }
    if (pv.spec?.volumeMode !== "Block") {
      this.refuse(
        pv,
        `Error cleaning PV "${name}": volumeMode is ${pv.spec?.volumeMode ?? "Filesystem"}, not Block; not wiped`,
      );
      return;
    }
    const failedAt = this.failedAt.get(uid);
    if (failedAt !== undefined && this.backoff.isInBackOffSince(uid, failedAt)) return;
    const backing = await devices.backingFile(device);
    if (backing !== record.file) {
      this.refuse(
        pv,
        `Error cleaning PV "${name}": ${device} is backed by ${backing ?? "nothing"}, not the recorded ${record.file}; not wiped`,
      );
      return;
    }

    // the provisioner's own message (deleter.go's cleanBlockPV)
    this.options.events.recordFor(
      involved(pv),
      "Normal",
      EVENT_VOLUME_DELETE,
      `Starting cleanup of Block PV "${name}", this may take a while`,
    );
    this.log.info(
      { pv: name, device, file: record.file },
      "local-block recycler: wiping the device of a Released PV",
    );
    try {
      const result = await devices.wipe(device);
      if (result.discardError) {
        this.log.warn(
          { pv: name, device, discardError: result.discardError },
          "local-block recycler: blkdiscard failed; zeroed the first and last MiB instead",
        );
      }
      this.log.info({ pv: name, device, method: result.method }, "local-block recycler: device wiped");
    } catch (err) {
      this.failed(pv, `Error cleaning PV "${name}": ${errorMessage(err)}`, err);
      return;
    }

    const pending: Pending = { name, oldUid: uid, device, pv: recreatedPV(pv) };
    await this.savePending(pending);
    let outcome: "deleted" | "gone" | "changed";
    try {
      outcome = await client.deletePersistentVolume(name, {
        uid,
        ...(pv.metadata.resourceVersion ? { resourceVersion: pv.metadata.resourceVersion } : {}),
      });
    } catch (err) {
      await this.dropPending(name);
      this.failed(pv, `Error deleting PV "${name}": ${errorMessage(err)}`, err);
      return;
    }
    if (outcome === "changed") {
      // someone wrote it since it was listed: the next pass looks at it again
      await this.dropPending(name);
      this.log.info({ pv: name }, "local-block recycler: PV changed since listed; not deleted");
      return;
    }
    this.failedAt.delete(uid);
    this.log.info({ pv: name }, "local-block recycler: deleted the PV after its cleanup");
  }

  /** Creates again each deleted PV that is gone, if the record still names its device for this node. */
  private async createPending(records: readonly LoopDeviceRecord[]): Promise<void> {
    const { client } = this.options;
    for (const pending of await this.loadPending()) {
      const current = await client.getPersistentVolume(pending.name);
      if (current) {
        if (current.metadata.uid !== pending.oldUid) {
          // created again already (by an earlier pass that stopped short, or by `make up`)
          await this.dropPending(pending.name);
        }
        // else: still there (held by its pv-protection finalizer until the PV controller lets it go)
        continue;
      }
      const record = records.find((r) => localBlockPVName(r) === pending.name);
      if (record?.device !== pending.device) {
        this.log.warn(
          { pv: pending.name, device: pending.device },
          "local-block recycler: the loop-device record no longer names this PV's device; not created again",
        );
        await this.dropPending(pending.name);
        continue;
      }
      try {
        await client.createPersistentVolume(pending.pv);
      } catch (err) {
        // someone created it in between: the next pass sees its UID
        if (isAlreadyExists(err)) continue;
        throw err;
      }
      await this.dropPending(pending.name);
      this.log.info(
        { pv: pending.name, device: pending.device },
        "local-block recycler: created the PV again",
      );
    }
  }

  private pendingFile(name: string): string {
    return path.join(this.options.pendingDir, `${name}.json`);
  }

  private async savePending(pending: Pending): Promise<void> {
    await mkdir(this.options.pendingDir, { recursive: true });
    const file = this.pendingFile(pending.name);
    await writeFile(`${file}.new`, `${JSON.stringify(pending, null, 2)}\n`);
    await rename(`${file}.new`, file);
  }

  private async dropPending(name: string): Promise<void> {
    await rm(this.pendingFile(name), { force: true });
  }

  private async loadPending(): Promise<Pending[]> {
    const names = await readdir(this.options.pendingDir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return [];
      throw err;
    });
    const found: Pending[] = [];
    for (const file of names.filter((n) => n.endsWith(".json")).sort()) {
      const full = path.join(this.options.pendingDir, file);
      try {
        const pending = pendingSchema.parse(JSON.parse(await readFile(full, "utf8")));
        if (`${pending.name}.json` === file) found.push(pending);
      } catch (err) {
        this.log.error({ err, file: full }, "local-block recycler: unreadable pending PV; ignored");
      }
    }
    return found;
  }
}
