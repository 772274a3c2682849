// The VMI controller with the real launcher client over a real unix socket in the pod's sockets dir,
// against a stand-in launcher Cmd server.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { keyOf, silentLogger } from "../controller/index.js";
import { socketDirectoryOnHost, socketFilePathOnHost } from "../handler-launcher-com/sockets.js";
import { LauncherClients } from "./launcher-clients.js";
import { FakeLauncherServer } from "./testing/fake-launcher.js";
import { VirtualMachineController } from "./vm.js";

const UID = "9c2f6d2e-aaaa-bbbb-cccc-ddddeeeeffff";

describe("VirtualMachineController with a launcher over gRPC", () => {
  let dir: string;
  let launcher: FakeLauncherServer;
  let clients: LauncherClients;
  const cache = new Map<string, VirtualMachineInstance>();
  let onDelete: ((vmi: VirtualMachineInstance) => void) | undefined;
  const patches: object[] = [];
  let controller: VirtualMachineController;

  beforeEach(async () => {
    // Short: a unix socket path has at most 107 bytes.
    dir = await mkdtemp(path.join(tmpdir(), "v"));
    await mkdir(socketDirectoryOnHost(UID, dir), { recursive: true });
    launcher = new FakeLauncherServer();
    await launcher.start(socketFilePathOnHost(UID, dir));
    clients = new LauncherClients("node01", dir);
    controller = new VirtualMachineController({
      host: "node01",
      vmis: {
        get: (key) => cache.get(key),
        addEventHandler: (handlers) => {
          onDelete = handlers.delete;
        },
      },
      launchers: clients.connector,
      patchStatus: async (_ns, _name, patch) => {
        patches.push(patch);
      },
      logger: silentLogger,
    });
  });

  afterEach(async () => {
    clients.closeAll();
    await launcher.stopServer();
    await rm(dir, { recursive: true, force: true });
  });

  it("syncs the VMI, reports Running with its interface, and shuts the guest down on deletion", async () => {
    const vmi: VirtualMachineInstance = {
      metadata: { name: "testvmi", namespace: "default", resourceVersion: "3" },
      spec: { domain: { devices: {} } },
      status: { phase: "Scheduled", nodeName: "node01", activePods: { [UID]: "node01" } },
    };
    cache.set(keyOf(vmi), vmi);
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["SyncVirtualMachine default/testvmi"]);
    expect(patches).toEqual([
      {
        metadata: { resourceVersion: "3" },
        status: {
          phase: "Running",
          phaseTransitionTimestamps: [{ phase: "Running", phaseTransitionTimestamp: expect.any(String) }],
          selinuxContext: "none",
          interfaces: [
            {
              name: "default",
              mac: "02:00:00:aa:bb:cc",
              ipAddress: "10.0.2.2",
              ipAddresses: ["10.0.2.2"],
              interfaceName: "eth0",
              infoSource: "domain, guest-agent",
            },
          ],
          // no local disk and no pod-network interface: nothing would stop a migration
          conditions: [
            { type: "LiveMigratable", status: "True" },
            { type: "StorageLiveMigratable", status: "True" },
          ],
          migrationMethod: "LiveMigration",
        },
      },
    ]);

    cache.delete(keyOf(vmi));
    onDelete?.(vmi);
    await controller.sync("default/testvmi");
    expect(launcher.calls).toEqual(["SyncVirtualMachine default/testvmi", "ShutdownVirtualMachine"]);
    // The domain is off now: nothing more to do, and no status is written for a deleted VMI.
    expect(await controller.sync("default/testvmi")).toBeUndefined();
    expect(launcher.calls).toHaveLength(2);
    expect(patches).toHaveLength(1);
  });
});
