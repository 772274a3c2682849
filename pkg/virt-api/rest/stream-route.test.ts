import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseStreamRoute } from "./stream-route.js";

const VERSIONS = ["v1", "v1alpha3"];
const base = "/apis/subresources.kubevirt.io";
const vmi = `${base}/v1/namespaces/default/virtualmachineinstances/testvmi`;
const vm = `${base}/v1alpha3/namespaces/ns/virtualmachines/testvm`;

describe("parseStreamRoute", () => {
  it.each([
    [`${vmi}/console`, { resource: "virtualmachineinstances", subresource: "console", name: "testvmi" }],
    [`${vmi}/vnc?preserveSession=true`, { subresource: "vnc", namespace: "default" }],
    [`${vmi}/portforward/22`, { subresource: "portforward", port: "22" }],
    [`${vmi}/portforward/53/udp`, { subresource: "portforward", port: "53", protocol: "udp" }],
    [
      `${vm}/portforward/8080`,
      { version: "v1alpha3", resource: "virtualmachines", name: "testvm", port: "8080" },
    ],
    [`${vm}/portforward/8080/tcp`, { resource: "virtualmachines", protocol: "tcp" }],
  ])("%s", (url, expected) => {
    expect(parseStreamRoute(url, VERSIONS)).toMatchObject(expected);
  });

  it("keeps the query for the stream to read", () => {
    expect(parseStreamRoute(`${vmi}/vnc?preserveSession=true`, VERSIONS)?.query.get("preserveSession")).toBe(
      "true",
    );
  });

  it.each([
    `${base}/v2/namespaces/default/virtualmachineinstances/testvmi/console`,
    `${vm}/console`,
    `${vm}/vnc`,
    `${vmi}/vnc/screenshot`,
    `${vmi}/portforward`,
    `${vmi}/portforward/22/tcp/extra`,
    `${vmi}/portforward/%2F`,
    `${vmi}/usbredir`,
    `${base}/v1/namespaces/default/pods/p/portforward/22`,
  ])("is not %s", (url) => {
    expect(parseStreamRoute(url, VERSIONS)).toBeUndefined();
  });

  it("never throws and never yields a name, port or protocol with a slash", () => {
    const segment = fc.oneof(fc.string(), fc.constantFrom("%", "%2F", "%ZZ", "..", "22", "udp"));
    fc.assert(
      fc.property(
        fc.tuple(segment, segment, segment, fc.boolean()),
        ([name, port, protocol, withProtocol]) => {
          const url = `${vmi.replace("testvmi", name)}/portforward/${port}${withProtocol ? `/${protocol}` : ""}`;
          const route = parseStreamRoute(url, VERSIONS);
          if (route) expect(`${route.name}${route.port ?? ""}${route.protocol ?? ""}`).not.toContain("/");
        },
      ),
    );
  });
});
