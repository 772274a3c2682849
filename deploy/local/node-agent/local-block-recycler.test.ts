import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../../../pkg/controller/object.js";
import { KubeEventRecorder } from "./events.js";
import { FakeKubeClient } from "./fake-kube-client.js";
import { persistentVolumeSchema } from "./k8s-types.js";
import {
  LOCAL_BLOCK_LABEL,
  LocalBlockRecycler,
  RECYCLER_COMPONENT,
  recreatedPV,
} from "./local-block-recycler.js";
import { readLoopDeviceRecords, type LoopDeviceRecord } from "./loop-device-record.js";
import { silentLogger } from "./logger.js";
import type { LoopDeviceTools, WipeResult } from "./loop-device-wipe.js";

// The recycler over the fake apiserver and fake loop-device tools: a Released local-block PV of this
// node is wiped, deleted and created again Available under its name; nothing else is touched; a device
// the record does not name is refused; a failed wipe is an event and the PV stays.

const PVS = "/persistentvolumes";
const record = (node: string, index: number, device: string): LoopDeviceRecord => ({
  node,
  index,
  file: `/repo/.local/storage/${node}/block/disk${index}.img`,
  device,
  sizeBytes: 2 * 1024 ** 3,
});
const RECORDS = [
  record("node01", 0, "/dev/loop0"),
  record("node01", 1, "/dev/loop1"),
  record("node02", 0, "/dev/loop4"),
];
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** A local-block PV as `make up` applies it and the PV controller leaves it; `phase` Released by default. */
function pv(
  name: string,
  options: { node?: string | undefined; device: string; phase?: string; finalizers?: string[] },
): KubeObject & { spec: Record<string, unknown> } {
  const node = options.node;
  return {
    metadata: {
      name,
      uid: `old-${name}`,
      ...(node !== undefined ? { labels: { [LOCAL_BLOCK_LABEL]: node } } : {}),
      annotations: { [LAST_APPLIED]: "{}", "pv.kubernetes.io/bound-by-controller": "yes" },
      ...(options.finalizers ? { finalizers: options.finalizers } : {}),
    },
    spec: {
      capacity: { storage: "2Gi" },
      volumeMode: "Block",
      accessModes: ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "local-block",
      local: { path: options.device },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: "kubernetes.io/hostname", operator: "In", values: [node ?? "node01"] },
              ],
            },
          ],
        },
      },
      claimRef: { kind: "PersistentVolumeClaim", namespace: "default", name: "data", uid: "pvc-1" },
    },
    status: { phase: options.phase ?? "Released" },
  } as KubeObject & { spec: Record<string, unknown> };
}

class FakeLoopDevices implements LoopDeviceTools {
  readonly wiped: string[] = [];
  /** Devices whose wipe fails, with the error. */
  readonly failing = new Map<string, string>();
  /** Devices backed by another file than the record's. */
  readonly otherBacking = new Map<string, string>();

  constructor(private readonly steps: string[]) {}

  async backingFile(device: string): Promise<string | undefined> {
    const other = this.otherBacking.get(device);
    if (other !== undefined) return other;
    return RECORDS.find((r) => r.device === device)?.file;
  }

  async wipe(device: string): Promise<WipeResult> {
    this.steps.push(`wipe ${device}`);
    const failure = this.failing.get(device);
    if (failure) throw new Error(failure);
    this.wiped.push(device);
    return { method: "blkdiscard" };
  }
}

let dir: string;
let api: FakeKubeClient;
let steps: string[];
let devices: FakeLoopDevices;
let clock: { t: number };
let records: LoopDeviceRecord[];
/** Seeding is the test's doing, not a step. */
let seeding = false;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "kvts-recycler-"));
  api = new FakeKubeClient();
  steps = [];
  devices = new FakeLoopDevices(steps);
  clock = { t: Date.parse("2026-01-01T00:00:00Z") };
  records = [...RECORDS];
  api.api.observe((table, before, after) => {
    if (table !== PVS || seeding) return;
    if (!before && after) steps.push(`create ${after.metadata?.name ?? ""}`);
    if (before && !after) steps.push(`delete ${before.metadata?.name ?? ""}`);
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function recycler(node = "node01"): LocalBlockRecycler {
  return new LocalBlockRecycler({
    node,
    client: api,
    records: async () => records,
    devices,
    events: new KubeEventRecorder(api, node, silentLogger(), () => clock.t, RECYCLER_COMPONENT),
    pendingDir: path.join(dir, "pending"),
    log: silentLogger(),
    now: () => clock.t,
  });
}

const seed = (object: KubeObject): void => {
  seeding = true;
  api.api.seed(PVS, object);
  seeding = false;
};
const stored = (name: string) => {
  const object = api.api.get<KubeObject>(PVS, "", name);
  return object && persistentVolumeSchema.parse(object);
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const pvWrites = () => api.api.writes.filter((write) => write.includes("persistentvolumes"));
const pending = async () => readdir(path.join(dir, "pending")).catch(() => []);

describe("LocalBlockRecycler", () => {
  it("wipes a Released PV's device, deletes the PV and creates it again from its spec, unbound", async () => {
    seed(pv("local-block-node01-0", { node: "node01", device: "/dev/loop0" }));
    await recycler().sync();
    await settle();

    expect(steps).toEqual(["wipe /dev/loop0", "delete local-block-node01-0", "create local-block-node01-0"]);
    const again = stored("local-block-node01-0");
    expect(again?.metadata.uid).not.toBe("old-local-block-node01-0");
    expect(again?.metadata.labels).toEqual({ [LOCAL_BLOCK_LABEL]: "node01" });
    // kubectl apply's record stays, so the next `make up` merges over it; the binding's mark goes
    expect(again?.metadata.annotations).toEqual({ [LAST_APPLIED]: "{}" });
    const { claimRef: _claimRef, ...spec } = pv("local-block-node01-0", {
      node: "node01",
      device: "/dev/loop0",
    }).spec;
    expect(again?.spec).toEqual(spec);
    expect(again?.status).toBeUndefined();
    // the deletion was conditional on the version listed
    const deletion = api.writes("delete", "persistentvolume/local-block-node01-0")[0];
    expect(deletion?.body).toMatchObject({ preconditions: { uid: "old-local-block-node01-0" } });
    expect(
      (deletion?.body as { preconditions: { resourceVersion?: string } }).preconditions.resourceVersion,
    ).toMatch(/^\d+$/);
    expect(api.events).toEqual([
      expect.objectContaining({
        involvedObject: expect.objectContaining({ kind: "PersistentVolume", name: "local-block-node01-0" }),
        type: "Normal",
        reason: "VolumeDelete",
        message: 'Starting cleanup of Block PV "local-block-node01-0", this may take a while',
        source: { component: RECYCLER_COMPONENT, host: "node01" },
        metadata: expect.objectContaining({ namespace: "default" }),
      }),
    ]);
    expect(await pending()).toEqual([]);

    // the new PV is Available (no status yet): nothing more to do
    steps.length = 0;
    await recycler().sync();
    expect(steps).toEqual([]);
  });

  it("leaves Bound, Available, deleting, other nodes' and unlabelled PVs alone", async () => {
    seed(pv("local-block-node01-0", { node: "node01", device: "/dev/loop0", phase: "Bound" }));
    seed(pv("local-block-node01-1", { node: "node01", device: "/dev/loop1", phase: "Available" }));
    seed(pv("local-block-node02-0", { node: "node02", device: "/dev/loop4" }));
    seed(pv("unlabelled", { node: undefined, device: "/dev/loop1" }));
    seed(pv("failed", { node: "node01", device: "/dev/loop1", phase: "Failed" }));
    const deleting = pv("local-block-node01-0-deleting", { node: "node01", device: "/dev/loop0" });
    deleting.metadata = {
      ...deleting.metadata,
      deletionTimestamp: "2026-01-01T00:00:00Z",
      finalizers: ["kubernetes.io/pv-protection"],
    };
    seed(deleting);
    const before = api.api.list<KubeObject>(PVS);
    await recycler().sync();
    await settle();
    expect(steps).toEqual([]);
    expect(pvWrites()).toEqual([]);
    expect(api.events).toEqual([]);
    expect(api.api.list<KubeObject>(PVS)).toEqual(before);
  });

  it("refuses a device the record does not name for the PV, or that another file backs now", async () => {
    // a device of no record, another node's device, another index's device, a device whose file changed
    seed(pv("local-block-node01-2", { node: "node01", device: "/dev/loop9" }));
    seed(pv("local-block-node01-3", { node: "node01", device: "/dev/loop4" }));
    seed(pv("local-block-node01-1", { node: "node01", device: "/dev/loop0" }));
    seed(pv("local-block-node01-0", { node: "node01", device: "/dev/loop0" }));
    devices.otherBacking.set("/dev/loop0", "/home/someone/else.img");
    await recycler().sync();
    await settle();

    expect(steps).toEqual([]);
    expect(pvWrites()).toEqual([]);
    for (const name of [
      "local-block-node01-0",
      "local-block-node01-1",
      "local-block-node01-2",
      "local-block-node01-3",
    ]) {
      expect(stored(name)?.status).toEqual({ phase: "Released" });
    }
    const messages = api.events.map((event) => [event["type"], event["reason"], event["message"]]);
    expect(messages).toEqual(
      expect.arrayContaining([
        [
          "Warning",
          "VolumeFailedDelete",
          'Error cleaning PV "local-block-node01-2": device /dev/loop9 is not the one the loop-device record names for it on node node01; not wiped',
        ],
        [
          "Warning",
          "VolumeFailedDelete",
          'Error cleaning PV "local-block-node01-0": /dev/loop0 is backed by /home/someone/else.img, not the recorded /repo/.local/storage/node01/block/disk0.img; not wiped',
        ],
      ]),
    );
    expect(messages).toHaveLength(4);
  });

  it("reports a failed wipe as an event and keeps the PV, then retries after a back-off", async () => {
    seed(pv("local-block-node01-1", { node: "node01", device: "/dev/loop1" }));
    devices.failing.set(
      "/dev/loop1",
      "blkdiscard failed (exit 1), and zeroing the first and last MiB failed too",
    );
    const r = recycler();
    await r.sync();
    await settle();
    expect(steps).toEqual(["wipe /dev/loop1"]);
    expect(pvWrites()).toEqual([]);
    expect(stored("local-block-node01-1")?.metadata.uid).toBe("old-local-block-node01-1");
    expect(api.events.map((event) => [event["type"], event["reason"], event["message"]])).toEqual([
      [
        "Normal",
        "VolumeDelete",
        'Starting cleanup of Block PV "local-block-node01-1", this may take a while',
      ],
      [
        "Warning",
        "VolumeFailedDelete",
        'Error cleaning PV "local-block-node01-1": blkdiscard failed (exit 1), and zeroing the first and last MiB failed too',
      ],
    ]);
    expect(await pending()).toEqual([]);

    // within the back-off: not tried again
    clock.t += 5_000;
    await r.sync();
    expect(steps).toEqual(["wipe /dev/loop1"]);

    devices.failing.clear();
    clock.t += 10_000;
    await r.sync();
    expect(steps).toEqual([
      "wipe /dev/loop1",
      "wipe /dev/loop1",
      "delete local-block-node01-1",
      "create local-block-node01-1",
    ]);
  });

  it("waits for a PV its finalizer holds, and a restarted recycler creates it once it is gone", async () => {
    seed(
      pv("local-block-node01-0", {
        node: "node01",
        device: "/dev/loop0",
        finalizers: ["kubernetes.io/pv-protection"],
      }),
    );
    await recycler().sync();
    expect(steps).toEqual(["wipe /dev/loop0"]);
    expect(stored("local-block-node01-0")?.metadata.deletionTimestamp).toBeDefined();
    expect(await pending()).toEqual(["local-block-node01-0.json"]);

    // still held: neither wiped again nor created
    await recycler().sync();
    expect(steps).toEqual(["wipe /dev/loop0"]);

    // the PV controller lets it go
    api.api.mutate<KubeObject>(PVS, "", "local-block-node01-0", (object) => {
      object.metadata = { ...object.metadata, finalizers: [] };
    });
    expect(stored("local-block-node01-0")).toBeUndefined();
    await recycler().sync();
    expect(steps).toEqual(["wipe /dev/loop0", "delete local-block-node01-0", "create local-block-node01-0"]);
    expect(stored("local-block-node01-0")?.spec?.claimRef).toBeUndefined();
    expect(await pending()).toEqual([]);
  });

  it("creates no PV whose device the record stopped naming, and forgets one created by someone else", async () => {
    seed(
      pv("local-block-node01-0", {
        node: "node01",
        device: "/dev/loop0",
        finalizers: ["kubernetes.io/pv-protection"],
      }),
    );
    seed(
      pv("local-block-node01-1", {
        node: "node01",
        device: "/dev/loop1",
        finalizers: ["kubernetes.io/pv-protection"],
      }),
    );
    await recycler().sync();
    expect(await pending()).toEqual(["local-block-node01-0.json", "local-block-node01-1.json"]);
    for (const name of ["local-block-node01-0", "local-block-node01-1"]) {
      api.api.mutate<KubeObject>(PVS, "", name, (object) => {
        object.metadata = { ...object.metadata, finalizers: [] };
      });
    }
    // `make down` forgot node01's devices; `make up` applied node01-1 again meanwhile
    records = records.filter((r) => r.device !== "/dev/loop0");
    seed({
      ...pv("local-block-node01-1", { node: "node01", device: "/dev/loop1", phase: "Available" }),
      metadata: { name: "local-block-node01-1", uid: "applied", labels: { [LOCAL_BLOCK_LABEL]: "node01" } },
    } as KubeObject);
    steps.length = 0;
    await recycler().sync();
    expect(steps).toEqual([]);
    expect(stored("local-block-node01-0")).toBeUndefined();
    expect(stored("local-block-node01-1")?.metadata.uid).toBe("applied");
    expect(await pending()).toEqual([]);
  });

  it("does not create again a PV that changed between the listing and its deletion", async () => {
    seed(pv("local-block-node01-0", { node: "node01", device: "/dev/loop0" }));
    api.deletePersistentVolume = async () => "changed";
    await recycler().sync();
    expect(steps).toEqual(["wipe /dev/loop0"]);
    expect(stored("local-block-node01-0")?.metadata.uid).toBe("old-local-block-node01-0");
    expect(await pending()).toEqual([]);
  });
});

describe("recreatedPV", () => {
  it("keeps name, labels, annotations but the binding's, and the spec without claimRef", () => {
    const parsed = persistentVolumeSchema.parse({
      ...pv("local-block-node01-0", { node: "node01", device: "/dev/loop0" }),
      metadata: {
        name: "local-block-node01-0",
        uid: "u",
        resourceVersion: "7",
        creationTimestamp: "2026-01-01T00:00:00Z",
        finalizers: ["kubernetes.io/pv-protection"],
        labels: { [LOCAL_BLOCK_LABEL]: "node01" },
        annotations: { "pv.kubernetes.io/bound-by-controller": "yes" },
      },
    });
    const again = recreatedPV(parsed);
    expect(again["metadata"]).toEqual({
      name: "local-block-node01-0",
      labels: { [LOCAL_BLOCK_LABEL]: "node01" },
    });
    expect(again["spec"]).toMatchObject({
      local: { path: "/dev/loop0" },
      persistentVolumeReclaimPolicy: "Retain",
    });
    expect(again["spec"]).not.toHaveProperty("claimRef");
    expect(again).not.toHaveProperty("status");
  });
});

describe("readLoopDeviceRecords", () => {
  it("reads `up`'s record, none when there is no file, and refuses what is not a record", async () => {
    const file = path.join(dir, "loop-devices.json");
    expect(await readLoopDeviceRecords(file)).toEqual([]);
    await writeFile(file, JSON.stringify(RECORDS, null, 2));
    expect(await readLoopDeviceRecords(file)).toEqual(RECORDS);
    await writeFile(file, JSON.stringify([{ node: "node01", device: "/dev/loop0" }]));
    await expect(readLoopDeviceRecords(file)).rejects.toThrow(/not a list of loop devices/);
  });
});
