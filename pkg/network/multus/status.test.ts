import { describe, expect, it, vi } from "vitest";
import {
  lookupPodPrimaryIfaceName,
  NETWORK_STATUS_ANNOTATION,
  networkStatusesByPodIfaceName,
  networkStatusesFromPod,
} from "./status.js";

const podWith = (value: string) => ({ metadata: { annotations: { [NETWORK_STATUS_ANNOTATION]: value } } });
const log = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };

describe("the pod's multus network-status", () => {
  it("parses multus' annotation", () => {
    const statuses = networkStatusesFromPod(
      podWith(
        JSON.stringify([
          {
            name: "kindnet",
            interface: "eth0",
            ips: ["10.244.1.7"],
            mac: "aa:bb:cc:dd:ee:ff",
            default: true,
            dns: {},
          },
          { name: "ns1/attachnet1", interface: "pod17274e5ba35", mac: "02:00:00:00:00:01", dns: {} },
        ]),
      ),
    );
    expect(statuses.map((status) => status.interface)).toEqual(["eth0", "pod17274e5ba35"]);
    expect(lookupPodPrimaryIfaceName(statuses)).toBe("eth0");
    expect(networkStatusesByPodIfaceName(statuses).get("pod17274e5ba35")?.name).toBe("ns1/attachnet1");
  });

  it("reads bad JSON as no status, and logs it", () => {
    expect(networkStatusesFromPod(podWith("{not json"), log)).toEqual([]);
    expect(networkStatusesFromPod(podWith('{"name":"x"}'), log)).toEqual([]);
    expect(log.error).toHaveBeenCalledTimes(2);
    expect(networkStatusesFromPod({ metadata: {} })).toEqual([]);
    expect(networkStatusesFromPod(undefined)).toEqual([]);
  });

  it("drops fields of the wrong type, keeps the rest", () => {
    const [status] = networkStatusesFromPod(podWith('[{"name":"a","interface":"net1","default":"yes"}]'));
    expect(status).toEqual({ name: "a", interface: "net1" });
  });

  it("has no primary without a default entry that names its interface", () => {
    expect(lookupPodPrimaryIfaceName([{ name: "a", default: true }, { interface: "net1" }])).toBe("");
  });
});
