// Metrics as Prometheus scrapes them: through the `kubevirt-prometheus-metrics` Service the operator creates
// (headless, selecting every component pod labelled prometheus.kubevirt.io), each endpoint's /metrics over
// HTTPS on the `metrics` port, with upstream's metric names and labels — component status and the REST
// client's counters everywhere, VMI phase figures on virt-controller, and the running VMI's domain
// statistics on the virt-handler of its node.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyObject, eventually, jsonpath, kubectl, kubectlOk, runningLauncher } from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";

const VM = "e2e-metrics";
const BOOT_TIMEOUT_MS = 240_000;

interface Endpoint {
  ip: string;
  port: number;
  pod: string;
}

/** The Service's endpoints: the pods Prometheus would scrape, and the port its `metrics` name points at. */
async function metricsEndpoints(): Promise<Endpoint[]> {
  const endpoints = JSON.parse(
    await kubectlOk(["-n", "kubevirt", "get", "endpoints", "kubevirt-prometheus-metrics", "-o", "json"]),
  ) as {
    subsets?: {
      addresses?: { ip: string; targetRef?: { name: string } }[];
      ports?: { name?: string; port: number }[];
    }[];
  };
  return (endpoints.subsets ?? []).flatMap((subset) => {
    const port = subset.ports?.find((candidate) => candidate.name === "metrics")?.port ?? 0;
    return (subset.addresses ?? []).map((address) => ({
      ip: address.ip,
      port,
      pod: address.targetRef?.name ?? "",
    }));
  });
}

/** One scrape with curl, as a Prometheus without the cluster's CA would (the certificates are KubeVirt's own). */
async function scrape(endpoint: Endpoint): Promise<string> {
  const { stdout } = await promisify(execFile)(
    "curl",
    ["-sS", "--fail", "-k", "--max-time", "20", `https://${endpoint.ip}:${endpoint.port}/metrics`],
    { maxBuffer: 32 * 1024 * 1024 },
  );
  return stdout;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (names, labels, values; comments skipped). */
function samples(text: string): Sample[] {
  const parsed: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[label[1]!] = label[2]!;
    parsed.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return parsed;
}

const find = (all: Sample[], name: string, labels: Record<string, string> = {}) =>
  all.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );

const componentOf = (pod: string) => /^(virt-api|virt-controller|virt-handler|virt-operator)-/.exec(pod)?.[1];

let node = "";

beforeAll(async () => {
  await applyObject(testGuestVM(VM, { podNetwork: "masquerade" }));
  await runningLauncher(VM, BOOT_TIMEOUT_MS);
  node = await jsonpath("vmi", VM, "{.status.nodeName}");
}, BOOT_TIMEOUT_MS + 30_000);

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("metrics through the kubevirt-prometheus-metrics Service", () => {
  it("lists every component pod, each answering /metrics with its status and REST client series", async () => {
    const endpoints = await metricsEndpoints();
    const components = endpoints.map((endpoint) => componentOf(endpoint.pod));
    expect(new Set(components)).toEqual(
      new Set(["virt-api", "virt-controller", "virt-handler", "virt-operator"]),
    );
    expect(endpoints.every((endpoint) => endpoint.port === 8443)).toBe(true);
    const statusMetric: Record<string, string> = {
      "virt-api": "kubevirt_virt_api_ready_status",
      "virt-controller": "kubevirt_virt_controller_ready_status",
      "virt-handler": "kubevirt_virt_handler_ready_status",
      "virt-operator": "kubevirt_virt_operator_ready_status",
    };
    let leaders = 0;
    for (const endpoint of endpoints) {
      const component = componentOf(endpoint.pod)!;
      const all = samples(await scrape(endpoint));
      expect(find(all, statusMetric[component]!), endpoint.pod).toHaveLength(1);
      if (component !== "virt-operator")
        expect(find(all, statusMetric[component]!)[0]?.value, endpoint.pod).toBe(1);
      const requests = find(all, "kubevirt_rest_client_requests_total");
      expect(requests.length, endpoint.pod).toBeGreaterThan(0);
      expect(Object.keys(requests[0]!.labels).sort()).toEqual(["code", "host", "method", "resource", "verb"]);
      expect(
        find(all, "kubevirt_rest_client_request_latency_seconds_bucket").length,
        endpoint.pod,
      ).toBeGreaterThan(0);
      if (component === "virt-controller")
        leaders += find(all, "kubevirt_virt_controller_leading_status")[0]?.value ?? 0;
    }
    expect(leaders).toBe(1);
  });

  it("virt-controller's leader counts the running VMI by phase and times its phase transitions", async () => {
    await eventually(async () => {
      const controllers = (await metricsEndpoints()).filter((e) => componentOf(e.pod) === "virt-controller");
      const scraped = await Promise.all(controllers.map(async (endpoint) => samples(await scrape(endpoint))));
      const leader = scraped.find(
        (all) => find(all, "kubevirt_virt_controller_leading_status")[0]?.value === 1,
      );
      expect(leader).toBeDefined();
      const running = find(leader!, "kubevirt_vmi_phase_count", { phase: "running", node });
      expect(running.reduce((total, sample) => total + sample.value, 0)).toBeGreaterThanOrEqual(1);
      expect(
        find(leader!, "kubevirt_vmi_info", { name: VM, namespace: "default", phase: "running" }),
      ).toHaveLength(1);
      expect(
        find(leader!, "kubevirt_vmi_phase_transition_time_from_creation_seconds_count", {
          phase: "Running",
        })[0]?.value ?? 0,
      ).toBeGreaterThanOrEqual(1);
    }, 60_000);
  });

  it("the virt-handler of the VMI's node reports its domain statistics", async () => {
    await eventually(async () => {
      const handlers = (await metricsEndpoints()).filter((e) => componentOf(e.pod) === "virt-handler");
      const scraped = await Promise.all(handlers.map(async (endpoint) => samples(await scrape(endpoint))));
      const ours = { namespace: "default", name: VM };
      const withVmi = scraped.filter(
        (all) => find(all, "kubevirt_vmi_memory_resident_bytes", ours).length > 0,
      );
      expect(withVmi).toHaveLength(1); // only the handler of the VMI's node
      const all = withVmi[0]!;
      expect(find(all, "kubevirt_vmi_memory_resident_bytes", { ...ours, node })[0]?.value).toBeGreaterThan(0);
      expect(find(all, "kubevirt_vmi_vcpu_seconds_total", { ...ours, id: "0" })[0]?.value).toBeGreaterThan(0);
      expect(
        find(all, "kubevirt_vmi_network_receive_bytes_total", { ...ours, interface: "default" }),
      ).toHaveLength(1);
      expect(
        find(all, "kubevirt_vmi_network_transmit_bytes_total", { ...ours, interface: "default" }),
      ).toHaveLength(1);
      expect(
        find(all, "kubevirt_vmi_storage_read_traffic_bytes_total", { ...ours, drive: "containerdisk" })[0]
          ?.value,
      ).toBeGreaterThan(0);
      expect(
        find(all, "kubevirt_vmi_storage_write_traffic_bytes_total", { ...ours, drive: "containerdisk" }),
      ).toHaveLength(1);
    }, 90_000);
  });
});
