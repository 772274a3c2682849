import type { IncomingMessage } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { parseConsoleRoute, validateVMIForConsole } from "./console.js";
import { checkHandlerReachable, virtHandlerURL } from "./dialers.js";
import { acceptKey, clientHandshakeError, selectSubprotocol } from "./streamer.js";

const VERSIONS = ["v1", "v1alpha3"];

const vmi = (
  status: VirtualMachineInstance["status"],
  autoattachSerialConsole?: boolean,
): VirtualMachineInstance => ({
  metadata: { name: "testvmi", namespace: "default" },
  spec: { domain: { devices: autoattachSerialConsole === undefined ? {} : { autoattachSerialConsole } } },
  status,
});

describe("validateVMIForConsole (upstream's checks, in order)", () => {
  it.each([
    ["running", vmi({ phase: "Running" }), undefined],
    ["no serial console", vmi({ phase: "Running" }, false), [400, "No serial consoles are present."]],
    [
      "failed",
      vmi({ phase: "Failed" }),
      [
        409,
        'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": VMI is in failed status',
      ],
    ],
    ["scheduled", vmi({ phase: "Scheduled" }), [400, "VMI is not running"]],
    ["no status", vmi(undefined), [400, "VMI is not running"]],
  ] as const)("%s", (_case, input, expected) => {
    const status = validateVMIForConsole(input);
    expect(status && [status.code, status.message]).toEqual(expected);
  });

  it("refuses to look for a handler unless Running or Scheduled", () => {
    expect(checkHandlerReachable(vmi({ phase: "Scheduled" }))).toBeUndefined();
    expect(checkHandlerReachable(vmi({ phase: "Pending" }))?.message).toBe(
      "Unable to connect to VirtualMachineInstance because phase is Pending instead of Running or Scheduled",
    );
  });
});

describe("virtHandlerURL", () => {
  const onNode = vmi({ phase: "Running", nodeName: "node01" });
  it.each([
    [
      [{ podIP: "10.244.1.7" }],
      "wss://10.244.1.7:8186/v1/namespaces/default/virtualmachineinstances/testvmi/console",
    ],
    [
      [{ podIP: "fd00::7" }],
      "wss://[fd00::7]:8186/v1/namespaces/default/virtualmachineinstances/testvmi/console",
    ],
  ])("dials the pod IP of %j", (pods, url) => {
    expect(virtHandlerURL(onNode, pods, 8186, "console")).toEqual({ ok: true, value: url });
  });

  it.each([
    [[], "No virt-handler on node node01 found"],
    [[{ podIP: "a" }, { podIP: "b" }], "Expected to find one Pod, found 2 Pods"],
    [[{}], "virt-handler pod on node node01 has no pod IP yet"],
  ])("refuses %j", (pods, message) => {
    expect(virtHandlerURL(onNode, pods, 8186, "console")).toMatchObject({
      ok: false,
      status: { code: 400, message },
    });
  });
});

describe("parseConsoleRoute", () => {
  const base = "/apis/subresources.kubevirt.io";
  it.each([
    [`${base}/v1/namespaces/default/virtualmachineinstances/testvmi/console`, "default", "testvmi"],
    [`${base}/v1alpha3/namespaces/ns/virtualmachineinstances/vm/console?x=y`, "ns", "vm"],
  ])("%s", (url, namespace, name) => {
    expect(parseConsoleRoute(url, VERSIONS)).toMatchObject({ namespace, name });
  });

  it.each([
    `${base}/v2/namespaces/ns/virtualmachineinstances/vm/console`,
    `${base}/v1/namespaces/ns/virtualmachines/vm/console`,
    `${base}/v1/namespaces/ns/virtualmachineinstances/vm/vnc`,
    `${base}/v1/namespaces/a%2Fb/virtualmachineinstances/vm/console`,
    `${base}/v1/namespaces/%E0%A4%A/virtualmachineinstances/vm/console`,
    "/v1/namespaces/ns/virtualmachineinstances/vm/console",
  ])("is not %s", (url) => {
    expect(parseConsoleRoute(url, VERSIONS)).toBeUndefined();
  });

  it("never throws and never yields a name with a slash, on any input", () => {
    const segment = fc.oneof(fc.string(), fc.constantFrom("%", "%2F", "%ZZ", "..", "%00", "v1"));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.tuple(segment, segment, segment)), (input) => {
        const url =
          typeof input === "string"
            ? input
            : `${base}/${input[0]}/namespaces/${input[1]}/virtualmachineinstances/${input[2]}/console`;
        const parsed = parseConsoleRoute(url, VERSIONS);
        if (parsed) {
          expect(VERSIONS).toContain(parsed.version);
          expect(`${parsed.namespace}${parsed.name}`).not.toContain("/");
        }
      }),
    );
  });
});

describe("the client's handshake", () => {
  const request = (headers: Record<string, string>, method = "GET") =>
    ({ method, headers }) as unknown as IncomingMessage;
  const good = {
    connection: "keep-alive, Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  };

  it("accepts a WebSocket handshake and computes RFC 6455's accept key", () => {
    expect(clientHandshakeError(request(good))).toBeUndefined();
    expect(acceptKey("dGhlIHNhbXBsZSBub25jZQ==")).toBe("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  });

  it.each([
    [{ connection: "close" }, "GET", "'upgrade' token not found in 'Connection' header"],
    [{ upgrade: "h2c" }, "GET", "'websocket' token not found in 'Upgrade' header"],
    [{}, "POST", "request method is not GET"],
    [{ "sec-websocket-version": "8" }, "GET", "unsupported version"],
    [{ "sec-websocket-key": "short" }, "GET", "'Sec-WebSocket-Key' header must be Base64"],
  ])("refuses %j %s in gorilla's words", (override, method, message) => {
    expect(clientHandshakeError(request({ ...good, ...override }, method))).toContain(message);
  });

  it("answers with plain.kubevirt.io only when the client offered it", () => {
    expect(selectSubprotocol(request({ "sec-websocket-protocol": "a, plain.kubevirt.io" }))).toBe(
      "plain.kubevirt.io",
    );
    expect(selectSubprotocol(request({ "sec-websocket-protocol": "base64.channel.k8s.io" }))).toBeUndefined();
    expect(selectSubprotocol(request({}))).toBeUndefined();
  });

  it("never throws on any headers", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...Object.keys(good), "sec-websocket-protocol"), fc.string()),
        (h) => {
          clientHandshakeError(request(h));
          selectSubprotocol(request(h));
        },
      ),
    );
  });
});
