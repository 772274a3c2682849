import { describe, expect, it } from "vitest";
import { FakeKubeClient } from "./fake-kube-client.js";
import { podSchema, type Container, type Volume } from "./k8s-types.js";
import { objectSource } from "./kube-client.js";
import { ServiceAccountTokens } from "./service-account-tokens.js";
import { renderVolumes, UnsupportedVolumeError, VolumeSetUpError } from "./volumes.js";
import type { PersistentVolumeSource } from "./pod-runtime.js";

type Json = Record<string, unknown>;

interface Setup {
  resolvedClaims?: Map<string, PersistentVolumeSource>;
  containers?: Partial<Container>[];
  readOnly?: boolean;
  securityContext?: Json;
}

function render(
  client: FakeKubeClient,
  { containers, readOnly, securityContext, resolvedClaims }: Setup = {},
) {
  const pod = podSchema.parse({
    metadata: { name: "virt-launcher-vm", namespace: "vms", uid: "uid-1" },
    spec: {
      containers: (
        containers ?? [
          { volumeMounts: [{ name: "disk", mountPath: "/var/run/kubevirt-private/vmi-disks/disk" }] },
        ]
      ).map((c, i) => ({ name: `c${i}`, ...c })),
      volumes: [
        { name: "disk", persistentVolumeClaim: { claimName: "data", ...(readOnly ? { readOnly } : {}) } },
      ] satisfies Volume[],
      ...(securityContext ? { securityContext } : {}),
    },
  });
  return renderVolumes({
    pod,
    runtime: { podIPs: ["10.244.1.7"], hostIPs: ["10.244.1.1"] },
    allocatable: { cpu: 2, memory: 2 ** 30, "ephemeral-storage": 0 },
    objects: objectSource(client),
    tokens: new ServiceAccountTokens(client),
    ...(resolvedClaims ? { resolvedClaims } : {}),
  });
}

/** A claim Bound to `pv`, and the PV with `spec` pointing back at it. */
function bound(spec: Json): FakeKubeClient {
  const client = new FakeKubeClient();
  client.addPersistentVolumeClaim("vms", "data", "pv-1");
  client.addPersistentVolume("pv-1", {
    claimRef: { namespace: "vms", name: "data", uid: "pvc-data" },
    capacity: { storage: "1Gi" },
    accessModes: ["ReadWriteOnce"],
    ...spec,
  });
  return client;
}

const LOCAL_DIR = { local: { path: "/mnt/disks/vol1" }, nodeAffinity: {}, storageClassName: "local" };
const LOCAL_BLOCK = { local: { path: "/dev/loop7" }, volumeMode: "Block", storageClassName: "local-block" };
const asDevice = [{ volumeDevices: [{ name: "disk", devicePath: "/dev/disk" }] }];
const unprocessed = (cause: string) =>
  `Unable to attach or mount volumes: unmounted volumes=[disk], unattached volumes=[], failed to process volumes=[disk]: ${cause}`;

async function failure(attempt: Promise<unknown>): Promise<Error> {
  return attempt.then(
    () => {
      throw new Error("expected the volume to fail");
    },
    (err: unknown) => err as Error,
  );
}

describe("persistentVolumeClaim volumes", () => {
  it("wait for a claim that does not exist, with kubelet's message", async () => {
    const err = await failure(render(new FakeKubeClient()));
    expect(err).toBeInstanceOf(VolumeSetUpError);
    expect(err.message).toBe(
      unprocessed(
        'error processing PVC vms/data: failed to fetch PVC from API server: persistentvolumeclaims "data" not found',
      ),
    );
  });

  it("wait for a claim that is not bound yet", async () => {
    const client = new FakeKubeClient();
    client.addPersistentVolumeClaim("vms", "data");
    const err = await failure(render(client));
    expect(err).toBeInstanceOf(VolumeSetUpError);
    expect(err.message).toBe(unprocessed("error processing PVC vms/data: PVC is not bound"));
  });

  it("wait for a bound PV that is missing or bound to another claim", async () => {
    const client = new FakeKubeClient();
    client.addPersistentVolumeClaim("vms", "data", "pv-1");
    expect((await failure(render(client))).message).toContain(
      'failed to fetch PV pv-1 from API server: persistentvolumes "pv-1" not found',
    );
    client.addPersistentVolume("pv-1", { ...LOCAL_DIR, claimRef: { name: "data", uid: "someone-else" } });
    expect((await failure(render(client))).message).toContain(
      "found PV object pv-1 but its pv.Spec.ClaimRef.UID (someone-else) does not point to claim.UID (pvc-data)",
    );
  });

  it("use a hostPath PV (local-path-provisioner's) in place, without ownership change", async () => {
    const client = bound({
      hostPath: { path: "/opt/local-path-provisioner/pvc-1_vms_data", type: "DirectoryOrCreate" },
    });
    const [volume] = await render(client, { securityContext: { fsGroup: 107 } });
    expect(volume).toEqual({
      name: "disk",
      source: {
        kind: "persistentVolume",
        pvName: "pv-1",
        plugin: "hostPath",
        path: "/opt/local-path-provisioner/pvc-1_vms_data",
        type: "DirectoryOrCreate",
        volumeMode: "Filesystem",
        readOnly: false,
      },
    });
  });

  it("give a writable local directory PV to fsGroup, with its change policy", async () => {
    const client = bound(LOCAL_DIR);
    const [always] = await render(client, { securityContext: { runAsUser: 107, fsGroup: 107 } });
    expect(always?.source).toEqual({
      kind: "persistentVolume",
      pvName: "pv-1",
      plugin: "local",
      path: "/mnt/disks/vol1",
      volumeMode: "Filesystem",
      readOnly: false,
      fsGroup: { gid: 107, changePolicy: "Always" },
    });
    const [onMismatch] = await render(client, {
      securityContext: { fsGroup: 2000, fsGroupChangePolicy: "OnRootMismatch" },
    });
    expect(onMismatch?.source).toMatchObject({ fsGroup: { gid: 2000, changePolicy: "OnRootMismatch" } });
    const [none] = await render(client);
    expect(none?.source).not.toHaveProperty("fsGroup");
  });

  it("keep a read-only claim read-only and leave its ownership alone", async () => {
    const [volume] = await render(bound(LOCAL_DIR), { readOnly: true, securityContext: { fsGroup: 107 } });
    expect(volume?.source).toMatchObject({ plugin: "local", readOnly: true });
    expect(volume?.source).not.toHaveProperty("fsGroup");
  });

  it("map a local block PV named in volumeDevices, without fsGroup", async () => {
    const [volume] = await render(bound(LOCAL_BLOCK), {
      containers: asDevice,
      securityContext: { fsGroup: 107 },
    });
    expect(volume?.source).toEqual({
      kind: "persistentVolume",
      pvName: "pv-1",
      plugin: "local",
      path: "/dev/loop7",
      volumeMode: "Block",
      readOnly: false,
    });
  });

  it.each<[string, Json, Partial<Container>[], string]>([
    [
      "a Block PV in volumeMounts",
      LOCAL_BLOCK,
      [{ volumeMounts: [{ name: "disk", mountPath: "/d" }] }],
      "volume disk has volumeMode Block, but is specified in volumeMounts",
    ],
    [
      "a Filesystem PV in volumeDevices",
      LOCAL_DIR,
      asDevice,
      "volume disk has volumeMode Filesystem, but is specified in volumeDevices",
    ],
  ])("refuse %s as kubelet does", async (_what, spec, containers, cause) => {
    const err = await failure(render(bound(spec), { containers }));
    expect(err).toBeInstanceOf(VolumeSetUpError);
    expect(err.message).toBe(unprocessed(cause));
  });

  it("keep a claim resolved once for the pod, as kubelet does, when it starts deleting later", async () => {
    const client = bound(LOCAL_DIR);
    const resolvedClaims = new Map<string, PersistentVolumeSource>();
    const [first] = await render(client, { resolvedClaims });
    const claim = client.api.get("/persistentvolumeclaims", "vms", "data") as Json & { metadata: Json };
    client.api.seed("/persistentvolumeclaims", {
      ...claim,
      metadata: {
        ...claim.metadata,
        finalizers: ["kubernetes.io/pvc-protection"],
        deletionTimestamp: "2025-01-01T00:00:00Z",
      },
    } as never);
    expect((await failure(render(client))).message).toContain("PVC is being deleted");
    expect(await render(client, { resolvedClaims })).toEqual([first]);
  });

  it("name the PV source the agent cannot mount", async () => {
    const err = await failure(render(bound({ nfs: { server: "nfs.example", path: "/export" } })));
    expect(err).toBeInstanceOf(UnsupportedVolumeError);
    expect(err.message).toBe(
      'volume "disk" uses PersistentVolumeClaim "data" bound to PersistentVolume "pv-1" with source nfs, which the node agent does not support (supported: hostPath, local)',
    );
  });
});
