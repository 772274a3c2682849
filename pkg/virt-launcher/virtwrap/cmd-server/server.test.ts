import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../controller/log.js";
import { LauncherClient } from "../../../handler-launcher-com/cmd/v1/client.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultedVMI } from "../converter/testing.js";
import { noSuchDomain } from "../testing/fake-libvirt.js";
import { testManager } from "../testing/test-manager.js";
import type { DomainManager } from "./server.js";
import { INVALID_VMI_MESSAGE, Launcher, errorMessage, notSupportedMessage, runServer } from "./server.js";

const vmi = defaultedVMI({
  domain: { devices: { autoattachPodInterface: false }, resources: { requests: { memory: "64Mi" } } },
});

let stopServer: (() => Promise<void>) | undefined;
let client: LauncherClient | undefined;
afterEach(async () => {
  client?.close();
  await stopServer?.();
  client = undefined;
  stopServer = undefined;
});

async function serve(manager: DomainManager, allowEmulation = true): Promise<LauncherClient> {
  const socketPath = join(mkdtempSync(join(tmpdir(), "kvts-cmd-")), "launcher-sock");
  const server = await runServer(socketPath, new Launcher({ manager, allowEmulation, log: silentLogger }));
  stopServer = server.stop;
  client = await LauncherClient.connect(socketPath);
  return client;
}

describe("the launcher's Cmd server", () => {
  it("syncs a VMI into a running domain and reports it through GetDomain", async () => {
    const { manager } = testManager();
    const launcher = await serve(manager);
    expect(await launcher.getDomain()).toBeUndefined();
    await launcher.syncVirtualMachine(vmi);
    const domain = await launcher.getDomain();
    expect(domain?.status).toEqual({ status: "Running", reason: "Unknown" });
    expect(domain?.objectMeta.name).toBe("testvmi");
    expect(domain?.spec.type).toBe("qemu");
  });

  it("passes the allow-emulation setting to the manager", async () => {
    const { manager } = testManager();
    const launcher = await serve(manager, false);
    await expect(launcher.syncVirtualMachine(vmi)).rejects.toThrow(
      "kvm not present and emulation is not allowed",
    );
  });

  it("shuts down, kills and deletes through the manager", async () => {
    const { fake, manager } = testManager();
    const launcher = await serve(manager);
    await launcher.syncVirtualMachine(vmi);
    await launcher.pauseVirtualMachine(vmi);
    await launcher.unpauseVirtualMachine(vmi);
    await launcher.shutdownVirtualMachine(vmi);
    await launcher.killVirtualMachine(vmi);
    await launcher.deleteDomain(vmi);
    const commands = fake.calls
      .filter((call) => !call.startsWith("lookup"))
      .map((call) => call.split(" ")[0]);
    expect(commands).toEqual(["define", "create", "suspend", "resume", "shutdown", "destroy", "undefine"]);
  });

  it("answers a request without a valid VMI as upstream does", async () => {
    const launcher = await serve(testManager().manager);
    const garbled = await launcher.call("SyncVirtualMachine", { vmi: { vmiJson: Buffer.from("{not json") } });
    expect(garbled).toEqual({ success: false, message: INVALID_VMI_MESSAGE });
    const missing = await launcher.call("KillVirtualMachine", {});
    expect(missing).toEqual({ success: false, message: INVALID_VMI_MESSAGE });
    const notAVMI = await launcher.call("KillVirtualMachine", {
      vmi: { vmiJson: Buffer.from('{"spec": 5}') },
    });
    expect(notAVMI.success).toBe(false);
  });

  it("answers what is not built yet with a clear message, in the method's response shape", async () => {
    const launcher = await serve(testManager().manager);
    const migrate = await launcher.call("MigrateVirtualMachine", {
      vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) },
    });
    expect(migrate).toEqual({ success: false, message: notSupportedMessage("MigrateVirtualMachine") });
    const stats = await launcher.call("GetDomainStats", {});
    expect(stats.response).toEqual({
      success: false,
      message: "GetDomainStats is not supported yet by kubevirt-ts",
    });
  });

  it("takes a screenshot of the VMI's domain, and says why it cannot when there is none", async () => {
    const { fake, manager } = testManager();
    const launcher = await serve(manager);
    await expect(launcher.getScreenshot(vmi)).rejects.toThrow(
      /Domain not found: no domain with matching name 'default_testvmi'/,
    );
    await launcher.syncVirtualMachine(vmi);
    const shot = await launcher.getScreenshot(vmi);
    expect(shot.mime).toBe("image/png");
    expect(shot.data.toString("hex")).toBe("89504e470d0a1a0a");
    expect(fake.calls).toContain("screenshot default_testvmi screen=0");
    const garbled = await launcher.call("GetScreenshot", { vmi: { vmiJson: Buffer.from("{") } });
    expect(garbled.response).toEqual({ success: false, message: INVALID_VMI_MESSAGE });
  });

  it("pings and tells QEMU's version", async () => {
    const launcher = await serve(testManager().manager);
    await launcher.ping();
    expect(await launcher.getQemuVersion()).toBe("7.2.0");
  });

  it("words libvirt's errors as upstream's FormatLibvirtError does", () => {
    expect(errorMessage(noSuchDomain("default_x"))).toBe(
      "LibvirtError(Code=42, Domain=10, Message='Domain not found: no domain with matching name 'default_x'')",
    );
    expect(errorMessage(new Error("plain"))).toBe("plain");
  });
});
