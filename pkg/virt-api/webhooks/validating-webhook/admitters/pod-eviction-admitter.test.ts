import { describe, expect, it } from "vitest";
import type { KubeVirtConfiguration, VirtualMachineInstance } from "../../../../api/generated/v1.js";
import { ApiError } from "../../../../controller/api-error.js";
import { clusterWith } from "../../../../defaults/testing.js";
import type { AdmissionRequest } from "../../admission-review.js";
import type { JsonPatchOperation } from "../../mutating-webhook/mutators/admission.js";
import { admitPodEviction, type PodEvictionClient } from "./pod-eviction-admitter.js";

const NS = "default";

/** Pods and VMIs by name; patches recorded, not applied. */
class FakeClient implements PodEvictionClient {
  readonly patches: Array<{ name: string; patch: JsonPatchOperation[]; dryRun: boolean }> = [];
  constructor(
    private readonly pods: Record<string, unknown>,
    private readonly vmis: Record<string, unknown>,
    private readonly failPatch = false,
  ) {}
  async getPod(_namespace: string, name: string): Promise<unknown> {
    return found(this.pods[name], "pods", name);
  }
  async getVMI(_namespace: string, name: string): Promise<unknown> {
    return found(this.vmis[name], "virtualmachineinstances.kubevirt.io", name);
  }
  async patchVMI(_namespace: string, name: string, patch: JsonPatchOperation[], dryRun: boolean) {
    if (this.failPatch) throw new ApiError(409, "Conflict", "the object has been modified");
    this.patches.push({ name, patch, dryRun });
  }
}

function found(object: unknown, resource: string, name: string): unknown {
  if (object === undefined) throw new ApiError(404, "NotFound", `${resource} "${name}" not found`);
  return object;
}

function launcher(node = "node02", phase = "Running") {
  return {
    metadata: {
      name: "virt-launcher-testvmi-abcde",
      namespace: NS,
      labels: { "kubevirt.io": "virt-launcher" },
      annotations: { "kubevirt.io/domain": "testvmi" },
    },
    spec: { nodeName: node },
    status: { phase },
  };
}

function vmi(options: { strategy?: string; migratable?: boolean; evacuating?: string; node?: string } = {}) {
  const object: VirtualMachineInstance = {
    metadata: { name: "testvmi", namespace: NS },
    spec: { domain: { devices: {} } },
    status: {
      nodeName: options.node ?? "node02",
      conditions: [{ type: "LiveMigratable", status: options.migratable ? "True" : "False" }],
    },
  };
  if (options.strategy) object.spec.evictionStrategy = options.strategy;
  if (options.evacuating && object.status) object.status.evacuationNodeName = options.evacuating;
  return object;
}

function eviction(extra: Partial<AdmissionRequest> = {}, object: unknown = {}): AdmissionRequest {
  return {
    uid: "u1",
    resource: { group: "", version: "v1", resource: "pods" },
    subResource: "eviction",
    namespace: NS,
    name: "virt-launcher-testvmi-abcde",
    operation: "CREATE",
    object: { apiVersion: "policy/v1", kind: "Eviction", ...(object as object) },
    ...extra,
  };
}

async function admit(
  client: FakeClient,
  configuration: KubeVirtConfiguration = {},
  request: AdmissionRequest = eviction(),
) {
  return admitPodEviction(request, { clusterConfig: clusterWith(configuration), client });
}

const TRIGGERED = 'Eviction triggered evacuation of VMI "default/testvmi"';
const IN_PROGRESS = `Evacuation in progress: ${TRIGGERED}`;
const NOT_MIGRATABLE = "VMI testvmi is configured with an eviction strategy but is not live-migratable";
const MARK = [{ op: "add", path: "/status/evacuationNodeName", value: "node02" }];

describe("the pod eviction admitter, per eviction strategy", () => {
  // strategy × migratable × dryRun: the answer, and whether the VMI is marked (as a dry run or not).
  it.each<[string | undefined, boolean, boolean, string | undefined, boolean]>([
    [undefined, false, false, undefined, false],
    [undefined, true, false, undefined, false],
    ["None", false, false, undefined, false],
    ["None", true, false, undefined, false],
    ["None", true, true, undefined, false],
    ["LiveMigrate", false, false, NOT_MIGRATABLE, false],
    ["LiveMigrate", false, true, NOT_MIGRATABLE, false],
    ["LiveMigrate", true, false, TRIGGERED, true],
    ["LiveMigrate", true, true, TRIGGERED, true],
    ["LiveMigrateIfPossible", false, false, undefined, false],
    ["LiveMigrateIfPossible", false, true, undefined, false],
    ["LiveMigrateIfPossible", true, false, TRIGGERED, true],
    ["LiveMigrateIfPossible", true, true, TRIGGERED, true],
    ["External", false, false, TRIGGERED, true],
    ["External", false, true, TRIGGERED, true],
    ["External", true, false, TRIGGERED, true],
    ["External", true, true, TRIGGERED, true],
  ])("%s, migratable %s, dry run %s", async (strategy, migratable, dryRun, message, marked) => {
    const client = new FakeClient(
      { "virt-launcher-testvmi-abcde": launcher() },
      { testvmi: vmi({ ...(strategy ? { strategy } : {}), migratable }) },
    );
    const decision = await admit(client, {}, eviction(dryRun ? { dryRun: true } : {}));
    if (message === undefined) {
      expect(decision).toEqual({ allowed: true });
    } else {
      expect(decision).toEqual({ allowed: false, result: { message, code: 429 } });
    }
    expect(client.patches).toEqual(marked ? [{ name: "testvmi", patch: MARK, dryRun }] : []);
  });

  it.each<[string, ReturnType<typeof vmi>, KubeVirtConfiguration, string | undefined, boolean]>([
    [
      "the cluster's None: evicted",
      vmi({ migratable: true }),
      { evictionStrategy: "None" },
      undefined,
      false,
    ],
    [
      "the VMI's None wins over the cluster's LiveMigrate",
      vmi({ strategy: "None", migratable: true }),
      { evictionStrategy: "LiveMigrate" },
      undefined,
      false,
    ],
    [
      "the cluster's LiveMigrate, migratable: marked and refused",
      vmi({ migratable: true }),
      { evictionStrategy: "LiveMigrate" },
      TRIGGERED,
      true,
    ],
    [
      "the cluster's LiveMigrate, not migratable: refused as upstream",
      vmi(),
      { evictionStrategy: "LiveMigrate" },
      NOT_MIGRATABLE,
      false,
    ],
    [
      "the cluster's LiveMigrateIfPossible, not migratable: evicted",
      vmi(),
      { evictionStrategy: "LiveMigrateIfPossible" },
      undefined,
      false,
    ],
    [
      "the VMI's LiveMigrate wins over the cluster's None",
      vmi({ strategy: "LiveMigrate", migratable: true }),
      { evictionStrategy: "None" },
      TRIGGERED,
      true,
    ],
    [
      "LiveMigrate, already marked: refused, evacuation in progress",
      vmi({ strategy: "LiveMigrate", migratable: true, evacuating: "node02" }),
      {},
      IN_PROGRESS,
      false,
    ],
    [
      "External, already marked: refused, evacuation in progress",
      vmi({ strategy: "External", evacuating: "node02" }),
      {},
      IN_PROGRESS,
      false,
    ],
    [
      "LiveMigrate, the VMI runs elsewhere (a migration target pod): refused",
      vmi({ strategy: "LiveMigrate", migratable: true, node: "node01" }),
      {},
      "Eviction request for target Pod",
      false,
    ],
    [
      "External, the VMI runs elsewhere (a migration target pod): refused",
      vmi({ strategy: "External", node: "node01" }),
      {},
      "Eviction request for target Pod",
      false,
    ],
  ])("%s", async (_rule, object, configuration, message, marked) => {
    const client = new FakeClient({ "virt-launcher-testvmi-abcde": launcher() }, { testvmi: object });
    const decision = await admit(client, configuration);
    if (message === undefined) {
      expect(decision).toEqual({ allowed: true });
    } else {
      expect(decision).toEqual({ allowed: false, result: { message, code: 429 } });
    }
    expect(client.patches).toEqual(marked ? [{ name: "testvmi", patch: MARK, dryRun: false }] : []);
  });
});

describe("the pod eviction admitter, other pods and failures", () => {
  const external = () => ({ testvmi: vmi({ strategy: "External" }) });

  it.each([
    [
      "a pod that is not a launcher",
      { metadata: { name: "virt-launcher-testvmi-abcde", labels: { app: "x" } } },
    ],
    ["a completed launcher", launcher("node02", "Succeeded")],
    [
      "a launcher without the domain annotation",
      { ...launcher(), metadata: { labels: launcher().metadata.labels } },
    ],
  ])("lets %s go", async (_case, pod) => {
    const client = new FakeClient({ "virt-launcher-testvmi-abcde": pod }, external());
    expect(await admit(client)).toEqual({ allowed: true });
    expect(client.patches).toEqual([]);
  });

  it("lets a pod it cannot read go", async () => {
    expect(await admit(new FakeClient({}, external()))).toEqual({ allowed: true });
  });

  it("refuses when the launcher's VMI cannot be read", async () => {
    const decision = await admit(new FakeClient({ "virt-launcher-testvmi-abcde": launcher() }, {}));
    expect(decision.result).toEqual({
      message: 'kubevirt failed getting the vmi: virtualmachineinstances.kubevirt.io "testvmi" not found',
      code: 429,
    });
  });

  it("refuses when marking fails, for the caller to retry", async () => {
    const client = new FakeClient({ "virt-launcher-testvmi-abcde": launcher() }, external(), true);
    expect((await admit(client)).result?.message).toBe(
      "kubevirt failed marking the vmi for eviction: the object has been modified",
    );
  });

  it.each([
    ["the review is a dry run", eviction({ dryRun: true })],
    ["the Eviction's delete options are", eviction({}, { deleteOptions: { dryRun: ["All"] } })],
  ])("marks as a dry run when %s", async (_case, request) => {
    const client = new FakeClient({ "virt-launcher-testvmi-abcde": launcher() }, external());
    await admit(client, {}, request);
    expect(client.patches.map((patch) => patch.dryRun)).toEqual([true]);
  });

  it("records the descheduler as the eviction's source", async () => {
    const client = new FakeClient({ "virt-launcher-testvmi-abcde": launcher() }, external());
    const request = eviction(
      {},
      { metadata: { annotations: { "requested-by": "sigs.k8s.io/descheduler" } } },
    );
    await admit(client, {}, request);
    expect(client.patches[0]?.patch).toEqual([
      { op: "add", path: "/status/evacuationNodeName", value: "node02" },
      { op: "add", path: "/metadata/annotations", value: { "kubevirt.io/eviction-source": "descheduler" } },
    ]);
  });

  describe("hotplug pods", () => {
    const hotplug = {
      metadata: {
        name: "hp-volume-x",
        namespace: NS,
        labels: { "kubevirt.io": "hotplug-disk" },
        ownerReferences: [{ name: "virt-launcher-testvmi-abcde" }],
      },
    };
    const request = eviction({ name: "hp-volume-x" });

    it("refuses while the launcher's VMI exists", async () => {
      const client = new FakeClient(
        { "hp-volume-x": hotplug, "virt-launcher-testvmi-abcde": launcher() },
        external(),
      );
      expect((await admit(client, {}, request)).result).toEqual({
        message:
          "cannot evict hotplug pod: hp-volume-x associated with running vmi: testvmi in namespace default",
        code: 429,
      });
    });

    it("lets it go once the launcher is gone", async () => {
      const client = new FakeClient({ "hp-volume-x": hotplug }, external());
      expect(await admit(client, {}, request)).toEqual({ allowed: true });
    });
  });
});
