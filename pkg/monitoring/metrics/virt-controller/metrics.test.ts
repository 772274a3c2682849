import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { describedAs, samplesOf } from "../testing/exposition.js";
import { ControllerMetrics, type ControllerCaches } from "./metrics.js";

const created = "2026-01-01T00:00:00Z";
const at = (seconds: number) => new Date(Date.parse(created) + seconds * 1000).toISOString();

function vmi(
  name: string,
  phase: string,
  extra: Partial<VirtualMachineInstance> = {},
): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { namespace: "ns", name, uid: `uid-${name}`, creationTimestamp: created },
    spec: { domain: { devices: {} } },
    status: { phase, nodeName: "node01" },
    ...extra,
  } as VirtualMachineInstance;
}

function migration(name: string, phase: string | undefined): VirtualMachineInstanceMigration {
  return {
    metadata: { namespace: "ns", name, creationTimestamp: created },
    spec: { vmiName: `vmi-of-${name}` },
    status: phase === undefined ? {} : { phase },
  } as VirtualMachineInstanceMigration;
}

function caches(
  vmis: VirtualMachineInstance[],
  migrations: VirtualMachineInstanceMigration[] = [],
): ControllerCaches {
  const launcher: Pod = {
    metadata: {
      namespace: "ns",
      name: "virt-launcher-running-abcde",
      labels: { "kubevirt.io/created-by": "uid-running" },
    },
    spec: { nodeName: "node01", containers: [] },
    status: { phase: "Running" },
  } as unknown as Pod;
  const kubevirtType = {
    metadata: { name: "u1.small", labels: { "instancetype.kubevirt.io/vendor": "kubevirt.io" } },
  };
  return {
    vmis: () => vmis,
    migrations: () => migrations,
    podsIn: (namespace) => (namespace === "ns" ? [launcher] : []),
    instancetype: () => undefined,
    clusterInstancetype: (name) => (name === "u1.small" ? kubevirtType : undefined),
    preference: (key) => (key === "ns/mine" ? { metadata: { name: "mine", namespace: "ns" } } : undefined),
    clusterPreference: () => undefined,
    evictionStrategy: (vmi) => vmi.spec?.evictionStrategy ?? undefined,
  };
}

/** A stand-in for an informer's handlers: `update` calls what was registered. */
class FakeEvents<T> {
  private handlers: { update?(oldObj: T, newObj: T): void }[] = [];
  addEventHandler(handler: { update?(oldObj: T, newObj: T): void }) {
    this.handlers.push(handler);
    return () => (this.handlers = this.handlers.filter((h) => h !== handler));
  }
  update(oldObj: T, newObj: T) {
    for (const handler of this.handlers) handler.update?.(oldObj, newObj);
  }
}

const lead = (metrics: ControllerMetrics, cached: ControllerCaches) => {
  const vmis = new FakeEvents<VirtualMachineInstance>();
  const migrations = new FakeEvents<VirtualMachineInstanceMigration>();
  const stop = metrics.lead(cached, vmis, migrations);
  return { vmis, migrations, stop };
};

const values = (text: string, name: string, labels: Record<string, string> = {}) =>
  samplesOf(text, name, labels).map((sample) => sample.value);

describe("ControllerMetrics", () => {
  it("serves its own state and reports nothing of VMIs before it leads", async () => {
    const metrics = new ControllerMetrics();
    metrics.component.ready.set(1);
    const text = await metrics.registry.metrics();
    expect(describedAs(text, "kubevirt_virt_controller_ready_status")).toEqual([
      "Indication for a virt-controller that is ready to take the lead.",
      "gauge",
    ]);
    expect(describedAs(text, "kubevirt_virt_controller_leading_status")).toEqual([
      "Indication for an operating virt-controller.",
      "gauge",
    ]);
    expect(values(text, "kubevirt_virt_controller_ready_status")).toEqual([1]);
    expect(values(text, "kubevirt_virt_controller_leading_status")).toEqual([0]);
    expect(samplesOf(text, "kubevirt_vmi_info")).toEqual([]);
    expect(values(text, "kubevirt_vmi_migrations_in_pending_phase")).toEqual([0]);
    expect(describedAs(text, "kubevirt_rest_client_requests_total")[1]).toBe("counter");
  });

  it("describes every VMI of the cache in kubevirt_vmi_info, and counts them by node and phase", async () => {
    const metrics = new ControllerMetrics();
    const running = vmi("running", "Running", {
      metadata: {
        namespace: "ns",
        name: "running",
        uid: "uid-running",
        creationTimestamp: created,
        annotations: {
          "vm.kubevirt.io/os": "fedora",
          "vm.kubevirt.io/workload": "server",
          "vm.kubevirt.io/flavor": "small",
          "kubevirt.io/cluster-instancetype-name": "u1.small",
          "kubevirt.io/preference-name": "mine",
        },
        labels: { "kubevirt.io/outdatedLauncherImage": "" },
      },
      status: {
        phase: "Running",
        nodeName: "node01",
        machine: { type: "pc-q35-rhel9.6.0" },
        guestOSInfo: { kernelRelease: "6.8.5", machine: "x86_64", name: "Fedora Linux", versionId: "40" },
      },
    });
    const blocked = vmi("blocked", "Running", {
      spec: { domain: { devices: {} }, evictionStrategy: "LiveMigrate" },
    } as Partial<VirtualMachineInstance>);
    lead(metrics, caches([running, blocked, vmi("pending", "Pending"), vmi("other-pending", "Pending")]));
    const text = await metrics.registry.metrics();

    expect(describedAs(text, "kubevirt_vmi_info")).toEqual([
      "Information about VirtualMachineInstances.",
      "gauge",
    ]);
    expect(samplesOf(text, "kubevirt_vmi_info", { name: "running" })).toEqual([
      {
        name: "kubevirt_vmi_info",
        labels: {
          node: "node01",
          namespace: "ns",
          name: "running",
          phase: "running",
          os: "fedora",
          workload: "server",
          flavor: "small",
          instance_type: "u1.small",
          // Not one of the known vendors.
          preference: "<other>",
          guest_os_kernel_release: "6.8.5",
          guest_os_machine: "pc-q35-rhel9.6.0",
          guest_os_arch: "x86_64",
          guest_os_name: "Fedora Linux",
          guest_os_version_id: "40",
          evictable: "true",
          outdated: "true",
          vmi_pod: "virt-launcher-running-abcde",
        },
        value: 1,
      },
    ]);
    // LiveMigrate without being known migratable blocks eviction.
    expect(samplesOf(text, "kubevirt_vmi_info", { name: "blocked" })[0]?.labels).toMatchObject({
      evictable: "false",
      outdated: "false",
    });
    expect(
      values(text, "kubevirt_vmi_non_evictable", { node: "node01", namespace: "ns", name: "blocked" }),
    ).toEqual([1]);
    expect(values(text, "kubevirt_vmi_non_evictable", { name: "running" })).toEqual([0]);
    expect(values(text, "kubevirt_vmi_phase_count", { node: "node01", phase: "pending" })).toEqual([2]);
    expect(
      values(text, "kubevirt_vmi_phase_count", { node: "node01", phase: "running", os: "fedora" }),
    ).toEqual([1]);
  });

  it("counts migrations by phase and names the finished ones", async () => {
    const metrics = new ControllerMetrics();
    lead(
      metrics,
      caches(
        [],
        [
          migration("a", "Pending"),
          migration("b", "Scheduling"),
          migration("c", undefined),
          migration("d", "Running"),
          migration("e", "TargetReady"),
          migration("f", "Succeeded"),
          migration("g", "Failed"),
        ],
      ),
    );
    const text = await metrics.registry.metrics();
    expect(values(text, "kubevirt_vmi_migrations_in_pending_phase")).toEqual([1]);
    expect(values(text, "kubevirt_vmi_migrations_in_scheduling_phase")).toEqual([1]);
    expect(values(text, "kubevirt_vmi_migrations_in_unset_phase")).toEqual([1]);
    expect(values(text, "kubevirt_vmi_migrations_in_running_phase")).toEqual([2]);
    expect(samplesOf(text, "kubevirt_vmi_migration_succeeded")).toEqual([
      {
        name: "kubevirt_vmi_migration_succeeded",
        labels: { vmi: "vmi-of-f", vmim: "f", namespace: "ns" },
        value: 1,
      },
    ]);
    expect(samplesOf(text, "kubevirt_vmi_migration_failed")).toEqual([
      {
        name: "kubevirt_vmi_migration_failed",
        labels: { vmi: "vmi-of-g", vmim: "g", namespace: "ns" },
        value: 1,
      },
    ]);
  });

  it("observes VMI phase changes from the previous phase, from creation and from deletion", async () => {
    const metrics = new ControllerMetrics();
    const { vmis, stop } = lead(metrics, caches([]));
    const timestamps = [
      { phase: "Pending", phaseTransitionTimestamp: at(1) },
      { phase: "Scheduling", phaseTransitionTimestamp: at(3) },
      { phase: "Running", phaseTransitionTimestamp: at(10) },
    ];
    const withPhase = (phase: string) =>
      vmi("v", phase, {
        status: { phase, phaseTransitionTimestamps: timestamps },
      } as Partial<VirtualMachineInstance>);
    vmis.update(withPhase("Scheduling"), withPhase("Running"));
    vmis.update(withPhase("Running"), withPhase("Running")); // no change of phase: nothing observed
    const deleted = {
      ...withPhase("Succeeded"),
      metadata: { namespace: "ns", name: "v", creationTimestamp: created, deletionTimestamp: at(20) },
    };
    deleted.status!.phaseTransitionTimestamps = [
      ...timestamps,
      { phase: "Succeeded", phaseTransitionTimestamp: at(26) },
    ];
    vmis.update(withPhase("Running"), deleted);
    const text = await metrics.registry.metrics();

    const sum = (name: string, labels: Record<string, string>) => values(text, `${name}_sum`, labels);
    const count = (name: string, labels: Record<string, string>) => values(text, `${name}_count`, labels);
    const transition = "kubevirt_vmi_phase_transition_time_seconds";
    expect(sum(transition, { phase: "Running", last_phase: "Scheduling" })).toEqual([7]);
    expect(sum(transition, { phase: "Succeeded", last_phase: "Running" })).toEqual([16]);
    expect(count(transition, {})).toHaveLength(2);
    const fromCreation = "kubevirt_vmi_phase_transition_time_from_creation_seconds";
    expect(sum(fromCreation, { phase: "Running" })).toEqual([10]);
    expect(count(fromCreation, { phase: "Running" })).toEqual([1]);
    expect(sum("kubevirt_vmi_phase_transition_time_from_deletion_seconds", { phase: "Succeeded" })).toEqual([
      6,
    ]);
    expect(
      samplesOf(text, `${fromCreation}_bucket`, { phase: "Running" }).map((sample) => sample.labels["le"]),
    ).toEqual([
      ...["0.5", "1", "2", "5", "10", "20", "30", "40", "50", "60", "90", "120", "180", "300", "600", "1200"],
      ...["1800", "3600", "+Inf"],
    ]);

    stop();
    vmis.update(withPhase("Scheduling"), withPhase("Running"));
    expect(
      values(await metrics.registry.metrics(), `${transition}_count`, { last_phase: "Scheduling" }),
    ).toEqual([1]);
  });

  it("observes migration phase changes from creation", async () => {
    const metrics = new ControllerMetrics();
    const { migrations } = lead(metrics, caches([]));
    const running = migration("m", "Running");
    running.status!.phaseTransitionTimestamps = [
      { phase: "Pending", phaseTransitionTimestamp: at(0) },
      { phase: "Running", phaseTransitionTimestamp: at(4) },
    ];
    migrations.update(migration("m", "Scheduled"), running);
    const text = await metrics.registry.metrics();
    expect(
      values(text, "kubevirt_vmi_migration_phase_transition_time_from_creation_seconds_sum", {
        phase: "Running",
      }),
    ).toEqual([4]);
  });

  it("leaves out what it cannot read instead of failing the scrape", async () => {
    const metrics = new ControllerMetrics();
    const broken = { metadata: { name: "broken" } } as unknown as VirtualMachineInstance;
    const cached = caches([broken, vmi("fine", "Running")]);
    lead(metrics, { ...cached, podsIn: () => [{} as Pod, null as unknown as Pod] });
    const text = await metrics.registry.metrics();
    expect(samplesOf(text, "kubevirt_vmi_info").map((sample) => sample.labels["name"])).toEqual([
      "broken",
      "fine",
    ]);
  });
});
