// Volume hotplug against a real libvirtd (Debian's packages, installed if missing): the launcher's
// domain manager, over the libvirt client, starts a small TCG domain from a VMI, then a sync with a
// hotplugged claim attaches its image (a sparse raw file where virt-handler would bind-mount disk.img)
// and a sync without it detaches it again, as a launcher pod does.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { silentLogger } from "../../controller/log.js";
import { LibvirtClient } from "../../libvirt/client.js";
import type { Domain, DomainEvent } from "../../libvirt/client.js";
import {
  VIR_DOMAIN_EVENT_ID_DEVICE_ADDED,
  VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED,
  VIR_DOMAIN_RUNNING,
  VIR_DOMAIN_XML_INACTIVE,
} from "../../libvirt/generated/libvirt-api.js";
import { startSessionDaemon } from "../../libvirt/testdata/session-daemon.js";
import type { SessionDaemon } from "../../libvirt/testdata/session-daemon.js";
import { runnable, unlessRoot } from "../../testutils/requirement.js";
import type { LauncherLayout } from "../layout.js";
import { hotplugDiskDir, hotplugFilesystemVolumePath, layoutUnder } from "../layout.js";
import { unmarshalDomainXML } from "./api/domain-xml.js";
import type { Disk } from "./api/schema.js";
import { defaultedVMI } from "./converter/testing.js";
import { LibvirtDomainManager } from "./manager.js";
import { MetadataCache } from "./metadata-cache.js";
import { SessionDaemonPreparation } from "./testing/session-preparation.js";

const installScript = fileURLToPath(new URL("../../libvirt/testdata/install-libvirt.sh", import.meta.url));
// starting a private libvirtd as another uid needs root
const isRoot = runnable("the hotplug tests with a real libvirtd", unlessRoot());
const DAEMON_UID = 61804;
// A short name keeps the sockets libvirt puts under the daemon's temporary dirs within a socket path's length.
const DOMAIN = "hp_vm";
const VOLUME = "hpvol";

function vmi(hotplugPhase?: string): VirtualMachineInstance {
  const hotplugged = hotplugPhase !== undefined;
  const result = defaultedVMI(
    {
      domain: {
        devices: {
          autoattachPodInterface: false,
          autoattachGraphicsDevice: false,
          disks: hotplugged ? [{ name: VOLUME, disk: { bus: "scsi" } }] : [],
        },
        resources: { requests: { memory: "64Mi" } },
      },
      volumes: hotplugged
        ? [{ name: VOLUME, persistentVolumeClaim: { claimName: "hp-claim", hotpluggable: true } }]
        : [],
    },
    { name: "vm", namespace: "hp" },
  );
  if (hotplugged) {
    result.status = {
      volumeStatus: [
        {
          name: VOLUME,
          target: "",
          phase: hotplugPhase,
          hotplugVolume: { attachPodName: "hp-volume-abcde", attachPodUID: "attach-uid" },
        },
      ],
    };
  }
  return result;
}

const hotplugDisksOf = (xml: string, dir: string): Disk[] =>
  (unmarshalDomainXML(xml).devices.disks ?? []).filter((disk) => disk.source.file?.startsWith(dir));

describe.runIf(isRoot)("volume hotplug with a real libvirtd", () => {
  let daemon: SessionDaemon;
  let client: LibvirtClient;
  let base: string;
  let layout: LauncherLayout;
  let manager: LibvirtDomainManager;
  const events: DomainEvent[] = [];
  /** The device events libvirt sent for the hotplugged disk, which the launcher's notifier passes on. */
  const deviceEvents = () =>
    events.flatMap((event) =>
      (event.kind === "device-added" || event.kind === "device-removed") && event.devAlias === `ua-${VOLUME}`
        ? [event.kind]
        : [],
    );

  beforeAll(async () => {
    execFileSync(installScript, { stdio: "pipe" });
    daemon = await startSessionDaemon({ uid: DAEMON_UID });
    client = await LibvirtClient.connect(daemon.socketPath);
    await client.connectOpen("qemu:///session");
    for (const eventID of [VIR_DOMAIN_EVENT_ID_DEVICE_ADDED, VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED]) {
      await client.subscribeDomainEvents(eventID, null, (event) => events.push(event));
    }
    base = mkdtempSync(join(tmpdir(), "kvts-hotplug-"));
    chmodSync(base, 0o755); // QEMU, as the daemon's uid, walks into it
    layout = layoutUnder(base);
    mkdirSync(hotplugDiskDir(layout), { recursive: true, mode: 0o755 });
    manager = new LibvirtDomainManager({
      connection: client,
      preparation: new SessionDaemonPreparation(layout, DAEMON_UID),
      metadata: new MetadataCache(),
      layout,
      log: silentLogger,
    });
  }, 300_000);

  afterAll(async () => {
    if (manager) {
      await manager.killVMI(vmi()).catch(() => undefined);
      await manager.deleteVMI(vmi()).catch(() => undefined);
    }
    await client?.close();
    await daemon?.stop();
    if (base) rmSync(base, { recursive: true, force: true });
  }, 60_000);

  it("attaches a file disk to the running domain and detaches it again", async () => {
    const dir = hotplugDiskDir(layout);
    await manager.syncVMI(vmi(), true, null);
    const dom: Domain = await client.domainLookupByName(DOMAIN);
    expect((await client.domainGetState(dom)).state).toBe(VIR_DOMAIN_RUNNING);
    expect(hotplugDisksOf(await client.domainGetXMLDesc(dom), dir)).toEqual([]);

    // Mounted in the pod, but the image is not there yet: nothing to attach.
    await manager.syncVMI(vmi("MountedToPod"), true, null);
    expect(hotplugDisksOf(await client.domainGetXMLDesc(dom), dir)).toEqual([]);

    // What virt-handler's bind mount provides: a (sparse) raw image, QEMU's to read and write.
    const image = hotplugFilesystemVolumePath(layout, VOLUME);
    writeFileSync(image, "");
    truncateSync(image, 64 << 20);
    chownSync(image, DAEMON_UID, DAEMON_UID);
    await manager.syncVMI(vmi("MountedToPod"), true, null);

    const live = hotplugDisksOf(await client.domainGetXMLDesc(dom), dir);
    expect(live).toEqual([
      expect.objectContaining({
        device: "disk",
        type: "file",
        source: { file: image },
        target: { bus: "scsi", device: "sda" },
        alias: { name: VOLUME, userDefined: true },
        address: expect.objectContaining({ type: "drive", controller: "0", unit: "0" }),
      }),
    ]);
    expect(live[0]?.driver).toMatchObject({
      name: "qemu",
      type: "raw",
      discard: "unmap",
      errorPolicy: "stop",
    });
    // In the persistent definition too, so a reboot of the guest keeps it.
    expect(hotplugDisksOf(await client.domainGetXMLDesc(dom, VIR_DOMAIN_XML_INACTIVE), dir)).toHaveLength(1);
    // QEMU has the image open.
    const blocks = await client.qemuDomainMonitorCommand(dom, '{"execute":"query-block"}');
    expect(blocks).toContain(image);
    // GetDomain, which virt-handler reads, shows it.
    const [domain] = await manager.listAllDomains();
    expect(domain?.spec.devices.disks?.map((disk) => [disk.alias?.name, disk.target.device])).toContainEqual([
      VOLUME,
      "sda",
    ]);

    await expect.poll(deviceEvents, { timeout: 15_000 }).toEqual(["device-added"]);

    // A repeated sync (virt-handler has marked it Ready and recorded the target) changes nothing.
    const ready = vmi("Ready");
    const status = ready.status?.volumeStatus?.[0];
    if (status) status.target = "sda";
    await manager.syncVMI(ready, true, null);
    expect(hotplugDisksOf(await client.domainGetXMLDesc(dom), dir)).toHaveLength(1);

    // Unplugged: the volume left the spec, its status stays until virt-handler has unmounted it.
    const unplugged = vmi();
    unplugged.status = ready.status;
    await manager.syncVMI(unplugged, true, null);
    // libvirt may answer before QEMU has finished removing the device.
    await expect
      .poll(async () => hotplugDisksOf(await client.domainGetXMLDesc(dom), dir), {
        timeout: 15_000,
        interval: 200,
      })
      .toEqual([]);
    expect(hotplugDisksOf(await client.domainGetXMLDesc(dom, VIR_DOMAIN_XML_INACTIVE), dir)).toEqual([]);
    expect(await client.qemuDomainMonitorCommand(dom, '{"execute":"query-block"}')).not.toContain(image);
    expect((await client.domainGetState(dom)).state).toBe(VIR_DOMAIN_RUNNING);
    await expect.poll(deviceEvents, { timeout: 15_000 }).toEqual(["device-added", "device-removed"]);
  }, 180_000);
});
