import { describe, expect, it } from "vitest";
import { parseVirtControllerFlags } from "./flags.js";

describe("parseVirtControllerFlags", () => {
  it("takes the arguments virt-operator's Deployment passes", () => {
    const flags = parseVirtControllerFlags([
      "--launcher-image",
      "registry:5000/kubevirt/virt-launcher:v1",
      "--exporter-image",
      "registry:5000/kubevirt/virt-exportserver:v1",
      "--port",
      "8443",
      "-v",
      "2",
    ]);
    expect(flags).toMatchObject({
      launcher: {
        launcherImage: "registry:5000/kubevirt/virt-launcher:v1",
        launcherQemuTimeoutSeconds: 240,
        virtShareDir: "/var/run/kubevirt",
        ephemeralDiskDir: "/var/run/kubevirt-ephemeral-disks",
        containerDiskDir: "/var/run/kubevirt/container-disks",
        hotplugDiskDir: "/var/run/kubevirt/hotplug-disks",
        imagePullSecret: "",
      },
      port: 8443,
      verbosity: 2,
      vmWorkers: 2,
      vmiWorkers: 2,
      rsWorkers: 2,
      poolWorkers: 2,
      nodeWorkers: 2,
      migrationWorkers: 2,
      evacuationWorkers: 2,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      certFile: "/etc/virt-controller/certificates/tls.crt",
      nodeHeartbeatTimeoutMs: 5 * 60_000,
    });
  });

  it("makes workers and leader election tunable", () => {
    const flags = parseVirtControllerFlags([
      "--vm-controller-threads",
      "4",
      "--vmi-controller-threads",
      "6",
      "--rs-controller-threads",
      "3",
      "--pool-controller-threads",
      "5",
      "--node-controller-threads",
      "7",
      "--migration-controller-threads",
      "8",
      "--evacuation-controller-threads",
      "9",
      "--leader-elect-lease-duration",
      "30s",
      "--node-heartbeat-timeout",
      "60s",
    ]);
    expect(flags).toMatchObject({
      vmWorkers: 4,
      vmiWorkers: 6,
      rsWorkers: 3,
      poolWorkers: 5,
      nodeWorkers: 7,
      migrationWorkers: 8,
      evacuationWorkers: 9,
      leaseDurationMs: 30_000,
      nodeHeartbeatTimeoutMs: 60_000,
      port: 8182,
    });
  });

  it("refuses unknown flags and bad numbers", () => {
    expect(() => parseVirtControllerFlags(["--no-such-flag"])).toThrow();
    expect(() => parseVirtControllerFlags(["--vm-controller-threads", "many"])).toThrow(
      'invalid argument "many" for "--vm-controller-threads" flag',
    );
    expect(() => parseVirtControllerFlags(["--node-heartbeat-timeout", "60"])).toThrow(
      'invalid argument "60" for "--node-heartbeat-timeout" flag',
    );
    expect(() => parseVirtControllerFlags(["--node-heartbeat-timeout", "0s"])).toThrow(
      'invalid argument "0s" for "--node-heartbeat-timeout" flag: must be a positive duration',
    );
  });
});
