import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { FileSystemList } from "../../../api/guest-agent-info.js";
import { convertDomainStats } from "../../../virt-launcher/virtwrap/stats/libvirt-stats.js";
import type { DomainStats } from "../../../virt-launcher/virtwrap/stats/types.js";
import { describedAs, samplesOf } from "../testing/exposition.js";
import type { LauncherStatsSource } from "./domainstats/scraper.js";
import { HandlerMetrics } from "./metrics.js";

function vmi(name: string): VirtualMachineInstance {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: {
      namespace: "ns",
      name,
      uid: `uid-${name}`,
      labels: { "kubevirt.io/domain": name, app: "web-1" },
    },
    spec: { domain: { devices: {} } },
    status: { nodeName: "node01", phase: "Running" },
  } as VirtualMachineInstance;
}

const stats = (name: string): DomainStats =>
  convertDomainStats({
    name: `ns_${name}`,
    uuid: "5e2fa4a4-4a60-4b1c-9d3c-1f0e3f0b6a11",
    params: {
      "cpu.time": 3_000_000_000n,
      "vcpu.maximum": 2,
      "vcpu.0.state": 1,
      "vcpu.0.time": 2_500_000_000n,
      "vcpu.0.wait": 500_000_000n,
      "vcpu.1.state": 2,
      "vcpu.1.time": 1_000_000_000n,
      "net.count": 1,
      "net.0.name": "tap0",
      "net.0.rx.bytes": 1024n,
      "net.0.tx.bytes": 2048n,
      "net.0.rx.pkts": 8n,
      "block.count": 1,
      "block.0.name": "vda",
      "block.0.rd.bytes": 409600n,
      "block.0.wr.bytes": 40960n,
      "block.0.rd.times": 2_000_000_000n,
    },
    memory: [
      { tag: 7, val: 51200n },
      { tag: 2, val: 12n },
    ],
    info: { memory: 65536n, nrVirtCpu: 2 },
    aliases: new Map([
      ["tap0", "default"],
      ["vda", "containerdisk"],
    ]),
  });

const filesystems: FileSystemList = {
  items: [{ diskName: "vda1", mountPoint: "/", fileSystemType: "ext4", usedBytes: 1000, totalBytes: 4000 }],
};

/** A launcher answering `answer`, counting how often it was closed. */
function launcher(answer: () => Promise<DomainStats | undefined>) {
  const source = {
    closed: 0,
    getDomainStats: answer,
    getFilesystems: () => Promise.resolve(filesystems),
    close: () => void source.closed++,
  };
  return source;
}

function handlerMetrics(
  vmis: VirtualMachineInstance[],
  launchers: Record<string, LauncherStatsSource | undefined>,
  options: { maxRequestsPerLauncher?: number; timeoutMs?: number } = {},
) {
  const metrics = new HandlerMetrics();
  metrics.collectDomainStatsFrom({
    vmis: () => vmis,
    dial: (v) => Promise.resolve(launchers[v.metadata?.name ?? ""]),
    maxRequestsPerLauncher: options.maxRequestsPerLauncher ?? 3,
    timeoutMs: options.timeoutMs,
  });
  return metrics;
}

const base = {
  node: "node01",
  namespace: "ns",
  name: "vm1",
  kubernetes_vmi_label_kubevirt_io_domain: "vm1",
  kubernetes_vmi_label_app: "web-1",
};

describe("HandlerMetrics", () => {
  it("reports each VMI's domain stats with upstream's names, labels and units", async () => {
    const source = launcher(() => Promise.resolve(stats("vm1")));
    const metrics = handlerMetrics([vmi("vm1")], { vm1: source });
    metrics.ready.set(1);
    const text = await metrics.registry.metrics();
    const sample = (name: string, labels: Record<string, string> = {}) =>
      samplesOf(text, name, { ...base, ...labels }).map((s) => s.value);

    expect(samplesOf(text, "kubevirt_virt_handler_ready_status").map((s) => s.value)).toEqual([1]);
    expect(describedAs(text, "kubevirt_vmi_memory_resident_bytes")).toEqual([
      "Resident set size of the process running the domain.",
      "gauge",
    ]);
    expect(samplesOf(text, "kubevirt_vmi_memory_resident_bytes")).toEqual([
      { name: "kubevirt_vmi_memory_resident_bytes", labels: base, value: 51200 * 1024 },
    ]);
    expect(sample("kubevirt_vmi_memory_domain_bytes")).toEqual([65536 * 1024]);
    expect(sample("kubevirt_vmi_memory_pgmajfault_total")).toEqual([12]);
    expect(sample("kubevirt_vmi_cpu_usage_seconds_total")).toEqual([3]);

    expect(describedAs(text, "kubevirt_vmi_vcpu_seconds_total")[1]).toBe("counter");
    expect(sample("kubevirt_vmi_vcpu_seconds_total", { id: "0", state: "running" })).toEqual([2.5]);
    expect(sample("kubevirt_vmi_vcpu_seconds_total", { id: "1", state: "blocked" })).toEqual([1]);
    expect(sample("kubevirt_vmi_vcpu_wait_seconds_total", { id: "0" })).toEqual([0.5]);

    expect(describedAs(text, "kubevirt_vmi_network_receive_bytes_total")).toEqual([
      "Total network traffic received in bytes.",
      "counter",
    ]);
    expect(samplesOf(text, "kubevirt_vmi_network_receive_bytes_total")).toEqual([
      {
        name: "kubevirt_vmi_network_receive_bytes_total",
        labels: { ...base, interface: "default" },
        value: 1024,
      },
    ]);
    expect(sample("kubevirt_vmi_network_transmit_bytes_total", { interface: "default" })).toEqual([2048]);
    expect(sample("kubevirt_vmi_network_receive_packets_total", { interface: "default" })).toEqual([8]);
    expect(sample("kubevirt_vmi_network_traffic_bytes_total", { interface: "default", type: "tx" })).toEqual([
      2048,
    ]);

    expect(samplesOf(text, "kubevirt_vmi_storage_read_traffic_bytes_total")).toEqual([
      {
        name: "kubevirt_vmi_storage_read_traffic_bytes_total",
        labels: { ...base, drive: "containerdisk" },
        value: 409600,
      },
    ]);
    expect(sample("kubevirt_vmi_storage_write_traffic_bytes_total", { drive: "containerdisk" })).toEqual([
      40960,
    ]);
    expect(sample("kubevirt_vmi_storage_read_times_seconds_total", { drive: "containerdisk" })).toEqual([2]);
    // Not reported by libvirt: no series.
    expect(samplesOf(text, "kubevirt_vmi_storage_iops_read_total")).toEqual([]);

    expect(
      sample("kubevirt_vmi_filesystem_used_bytes", {
        disk_name: "vda1",
        mount_point: "/",
        file_system_type: "ext4",
      }),
    ).toEqual([1000]);
    expect(source.closed).toBe(1);
  });

  it("leaves out VMIs whose launcher is missing, failing, without a domain or too slow, and reports the rest", async () => {
    let asked = 0;
    const hung = launcher(() => {
      asked++;
      return new Promise<DomainStats | undefined>(() => undefined);
    });
    const metrics = handlerMetrics(
      [vmi("vm1"), vmi("gone"), vmi("failing"), vmi("stopping"), vmi("hung")],
      {
        vm1: launcher(() => Promise.resolve(stats("vm1"))),
        gone: undefined,
        failing: launcher(() => Promise.reject(new Error("connection refused"))),
        stopping: launcher(() => Promise.resolve(undefined)),
        hung,
      },
      { maxRequestsPerLauncher: 1, timeoutMs: 50 },
    );
    const names = async () => [
      ...new Set(
        samplesOf(await metrics.registry.metrics(), "kubevirt_vmi_memory_resident_bytes").map(
          (s) => s.labels["name"],
        ),
      ),
    ];
    expect(await names()).toEqual(["vm1"]);
    // The hung launcher is still busy with the first scrape: the next one does not ask it again.
    expect(await names()).toEqual(["vm1"]);
    expect(asked).toBe(1);
    expect(hung.closed).toBe(0);
  });

  it("reports no domain stats before it knows where to get them, or without VMIs", async () => {
    const metrics = new HandlerMetrics();
    const text = await metrics.registry.metrics();
    expect(samplesOf(text, "kubevirt_vmi_memory_resident_bytes")).toEqual([]);
    expect(describedAs(text, "kubevirt_vmi_memory_resident_bytes")[1]).toBe("gauge");
    expect(describedAs(text, "kubevirt_rest_client_request_latency_seconds")[1]).toBe("histogram");
    expect(await handlerMetrics([], {}).registry.metrics()).not.toContain(
      "kubevirt_vmi_memory_resident_bytes{",
    );
  });
});
