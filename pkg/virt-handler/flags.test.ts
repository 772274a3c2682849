import { describe, expect, it } from "vitest";
import { parseVirtHandlerFlags } from "./flags.js";

describe("virt-handler flags", () => {
  it("has upstream's defaults", () => {
    expect(parseVirtHandlerFlags([])).toMatchObject({
      port: 8185,
      listen: "0.0.0.0",
      hostnameOverride: "",
      virtShareDir: "/var/run/kubevirt",
      kubeletRoot: "/var/lib/kubelet",
      maxDevices: 1000,
      maxMetricRequests: 3,
      consoleServerPort: 8186,
      gracefulShutdownSeconds: 300,
      watchdogTimeoutMs: 30_000,
      heartbeatIntervalMs: 60_000,
    });
  });

  it("takes the heartbeat interval as a Go duration", () => {
    expect(parseVirtHandlerFlags(["--heartbeat-interval", "10s"]).heartbeatIntervalMs).toBe(10_000);
    expect(parseVirtHandlerFlags(["--heartbeat-interval", "1m30s"]).heartbeatIntervalMs).toBe(90_000);
  });

  it("parses the arguments the operator's DaemonSet passes", () => {
    const flags = parseVirtHandlerFlags([
      "--port", "8443",
      "--hostname-override", "node01",
      "--pod-ip-address", "10.244.1.5",
      "--max-metric-requests", "5",
      "--console-server-port", "8186",
      "--vmstats-server-port", "8187",
      "--graceful-shutdown-seconds", "300",
      "--migration-cn-types", "migration",
      "-v", "4",
      "--max-devices", "7",
    ]); // prettier-ignore
    expect(flags).toMatchObject({
      port: 8443,
      hostnameOverride: "node01",
      podIpAddress: "10.244.1.5",
      maxDevices: 7,
      maxMetricRequests: 5,
      verbosity: 4,
    });
  });

  it.each([
    [["--max-devices", "many"], 'invalid argument "many" for "--max-devices" flag'],
    [["--enable-node-labeller", "yes"], 'invalid argument "yes" for "--enable-node-labeller" flag'],
    [
      ["--heartbeat-interval", "often"],
      'invalid argument "often" for "--heartbeat-interval" flag: time: invalid duration "often"',
    ],
    [
      ["--heartbeat-interval", "0s"],
      'invalid argument "0s" for "--heartbeat-interval" flag: must be a positive duration',
    ],
    [["--no-such-flag", "1"], "Unknown option '--no-such-flag'"],
  ])("refuses %j", (argv, message) => {
    expect(() => parseVirtHandlerFlags(argv)).toThrow(message);
  });
});
