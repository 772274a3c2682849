import { describe, expect, it } from "vitest";
import { servedName } from "./discovery.js";

const base = "/apis/subresources.kubevirt.io/:version";

describe("servedName: the discovery name of a registered route", () => {
  it.each([
    [`${base}/namespaces/:namespace/virtualmachines/:name/start`, "virtualmachines/start"],
    [
      `${base}/namespaces/:namespace/virtualmachineinstances/:name/vnc/screenshot`,
      "virtualmachineinstances/vnc/screenshot",
    ],
    [
      `${base}/namespaces/:namespace/virtualmachineinstances/:name/portforward/:port/:protocol`,
      "virtualmachineinstances/portforward",
    ],
    // Served on VMs as well, which upstream's list leaves out.
    [`${base}/namespaces/:namespace/virtualmachines/:name/portforward/:port`, undefined],
    [
      `${base}/namespaces/:namespace/virtualmachineinstances/:name/addvolume`,
      "virtualmachineinstances/addvolume",
    ],
    [`${base}/namespaces/:namespace/virtualmachines/:name/removevolume`, undefined],
    [`${base}/namespaces/:namespace/expand-vm-spec`, "expand-vm-spec"],
    [`${base}/version`, undefined],
    [`${base}/healthz`, undefined],
    [base, undefined],
  ])("%s → %s", (route, name) => {
    expect(servedName(route)).toBe(name);
  });

  it("refuses a route upstream's discovery has no name for, rather than listing an invented one", () => {
    expect(() => servedName(`${base}/namespaces/:namespace/virtualmachines/:name/frobnicate`)).toThrow(
      "which upstream's discovery does not list",
    );
  });
});
