import { describe, expect, it } from "vitest";
import {
  accessReviewFor,
  authenticateProxy,
  requestHeaderConfigFrom,
  resourceAttributesFor,
  type RequestHeaderConfig,
} from "./authorizer.js";

const config: RequestHeaderConfig = {
  clientCA: "CA",
  allowedNames: ["front-proxy-client"],
  usernameHeaders: ["X-Remote-User"],
  groupHeaders: ["X-Remote-Group"],
  extraHeaderPrefixes: ["X-Remote-Extra-"],
};

describe("requestHeaderConfigFrom", () => {
  it("reads the extension-apiserver-authentication data", () => {
    const loaded = requestHeaderConfigFrom({
      "requestheader-client-ca-file": "PEM",
      "requestheader-allowed-names": '["front-proxy-client"]',
      "requestheader-username-headers": '["X-Remote-User"]',
      "requestheader-group-headers": '["X-Custom-Group"]',
    });
    expect(loaded).toEqual({
      ok: true,
      value: {
        clientCA: "PEM",
        allowedNames: ["front-proxy-client"],
        usernameHeaders: ["X-Remote-User", "X-Remote-User"],
        groupHeaders: ["X-Remote-Group", "X-Custom-Group"],
        extraHeaderPrefixes: ["X-Remote-Extra-"],
      },
    });
  });

  it("requires the client CA, with upstream's message", () => {
    expect(requestHeaderConfigFrom({})).toEqual({
      ok: false,
      message: "requestheader-client-ca-file not found in extension-apiserver-authentication ConfigMap",
    });
  });
});

describe("authenticateProxy", () => {
  it.each([
    [undefined, "request is not authenticated"],
    [{ verified: false, commonName: "front-proxy-client" }, "request is not authenticated"],
    [{ verified: true, commonName: "intruder" }, 'client certificate CN "intruder" is not allowed'],
    [{ verified: true, commonName: "front-proxy-client" }, undefined],
  ])("%j → %s", (peer, expected) => {
    expect(authenticateProxy(peer, config)).toBe(expected);
  });

  it("accepts any verified CN when no names are configured", () => {
    expect(
      authenticateProxy({ verified: true, commonName: "any" }, { ...config, allowedNames: [] }),
    ).toBeUndefined();
  });
});

describe("resourceAttributesFor", () => {
  const base = "/apis/subresources.kubevirt.io/v1/namespaces/ns1";
  it.each([
    [
      "PUT",
      `${base}/virtualmachines/vm1/stop`,
      { verb: "update", resource: "virtualmachines", subresource: "stop", name: "vm1" },
    ],
    [
      "GET",
      `${base}/virtualmachineinstances/vmi1/console`,
      { verb: "get", resource: "virtualmachineinstances", subresource: "console" },
    ],
    ["GET", `${base}/virtualmachineinstances/vmi1/portforward/22/tcp`, { subresource: "portforward" }],
    ["GET", `${base}/virtualmachineinstances/vmi1/vnc/screenshot`, { subresource: "vnc/screenshot" }],
    ["PUT", `${base}/expand-vm-spec`, { verb: "update", resource: "expand-vm-spec" }],
  ])("%s %s", (method, path, expected) => {
    expect(resourceAttributesFor(method, path)).toMatchObject({
      namespace: "ns1",
      group: "subresources.kubevirt.io",
      version: "v1",
      ...expected,
    });
  });

  it.each([
    ["GET", `${base}/pods/p1/exec`, "unknown resource type pods"],
    ["GET", "/apis/subresources.kubevirt.io/v2", "unknown api endpoint: /apis/subresources.kubevirt.io/v2"],
    ["TRACE", `${base}/virtualmachines/vm1/start`, "unknown http verb in request: TRACE"],
  ])("refuses %s %s", (method, path, message) => {
    expect(resourceAttributesFor(method, path)).toBe(message);
  });
});

describe("accessReviewFor", () => {
  const path = "/apis/subresources.kubevirt.io/v1/namespaces/ns1/virtualmachines/vm1/start";
  it("needs a user and a group header", () => {
    expect(accessReviewFor("PUT", path, {}, config)).toBe(
      "a valid user header is required for authorization",
    );
    expect(accessReviewFor("PUT", path, { "x-remote-user": ["bob"] }, config)).toBe(
      "a valid group header is required for authorization",
    );
  });

  it("carries user, every group and the unescaped extras", () => {
    const review = accessReviewFor(
      "PUT",
      path,
      {
        "x-remote-user": ["bob"],
        "x-remote-group": ["a", "b"],
        "x-remote-extra-acme.com%2fproject": ["p1", "p2"],
      },
      config,
    );
    expect(typeof review !== "string" && review.spec).toMatchObject({
      user: "bob",
      groups: ["a", "b"],
      extra: { "acme.com/project": ["p1", "p2"] },
    });
  });
});
