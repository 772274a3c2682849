// Builds the test guest (cached) and boots it under plain QEMU TCG, the way a VMI would: once from
// the containerDisk with a NoCloud ISO and a NIC, once by kernel boot with the ISO on a SATA CD-ROM.
// Checks over the serial console, then presses the ACPI power button and expects QEMU to end.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  configDriveVolume,
  makeCloudInitIso,
  noCloudVolume,
  type CloudInitVolume,
} from "./cloud-init-iso.js";
import { QemuVm } from "./qemu-vm.js";
import { buildTestGuest, testGuestRoot, type TestGuestImage } from "./test-guest.js";
import { runnable, unlessRoot } from "../../../pkg/testutils/requirement.js";

// building the image needs root (apt-get)
const isRoot = runnable("the test guest boot tests", unlessRoot());

// TCG on two shared cores: generous bounds, the measured times are printed.
const BOOT_TIMEOUT_MS = 240_000;
const STEP_TIMEOUT_MS = 60_000;

interface Scenario {
  name: string;
  cloudInit: CloudInitVolume;
  hostname: string;
  /** Console lines the user-data's code must produce (proving it ran, not just that it was read). */
  userDataOutput: RegExp[];
  qemuArgs: (image: TestGuestImage, iso: string) => string[];
}

const machine = ["-machine", "q35", "-accel", "tcg", "-m", "256", "-smp", "1", "-no-reboot"];

// restrict=on: the guest reaches QEMU's own DHCP server and nothing beyond this process.
const virtioNic = ["-netdev", "user,id=net0,restrict=on", "-device", "virtio-net-pci,netdev=net0"];

const scenarios: Scenario[] = [
  {
    name: "containerDisk boot (disk/disk.qcow2) with NoCloud on a virtio disk",
    cloudInit: noCloudVolume({
      // meta-data as KubeVirt writes it (compact JSON); user-data's hostname wins over it.
      metaData: JSON.stringify({ "instance-id": "guest.default", "local-hostname": "from-meta-data" }),
      userData: [
        "#cloud-config",
        "hostname: from-user-data",
        "runcmd:",
        '  - echo "runcmd-marker-$((40+2))"',
        '  - [ sh, -c, "echo argv-marker-$((1+1))" ]',
        "",
      ].join("\n"),
    }),
    hostname: "from-user-data",
    userDataOutput: [
      /cloud-init: NoCloud data source on \/dev\/vdb \(instance-id guest\.default\)/,
      /runcmd-marker-42/,
      /argv-marker-2/,
      /cloud-init: runcmd done/,
    ],
    qemuArgs: (image, iso) => [
      ...["-drive", `file=${image.disk},if=virtio,format=qcow2,snapshot=on`],
      ...["-drive", `file=${iso},if=virtio,format=raw,readonly=on`],
      ...virtioNic,
    ],
  },
  {
    name: "kernel boot (boot/vmlinuz + boot/initramfs.cpio.gz) with a ConfigDrive on a SATA CD-ROM",
    cloudInit: configDriveVolume({
      // meta_data.json with the keys KubeVirt writes; user_data a shell script.
      metaData: JSON.stringify({ instance_id: "kb.default", local_hostname: "kernel-booted", uuid: "a-b-c" }),
      userData: '#!/bin/sh\necho "script-marker-$((6+1)) on $(hostname)"\n',
    }),
    hostname: "kernel-booted",
    userDataOutput: [
      /cloud-init: ConfigDrive data source on \/dev\/sr0 \(instance-id kb\.default\)/,
      /script-marker-7 on kernel-booted/,
      /cloud-init: user-data script done/,
    ],
    qemuArgs: (image, iso) => [
      ...["-kernel", image.kernel, "-initrd", image.initrd, "-append", "console=ttyS0 quiet"],
      ...["-cdrom", iso, ...virtioNic],
    ],
  },
];

describe.runIf(isRoot)("test guest image", () => {
  let image: TestGuestImage;

  beforeAll(async () => {
    const started = performance.now();
    image = await buildTestGuest({ withTestTools: true, onOutput: (line) => console.log(line) });
    console.log(
      `test guest build (cached if nothing changed): ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 1_200_000);

  it("is built where testGuestRoot() (the image store's lookup) says", () => {
    expect(image.root).toBe(testGuestRoot());
  });

  describe.each(scenarios)("$name", (scenario) => {
    let work: string;
    let vm: QemuVm | undefined;
    let shellPrompt: RegExp;
    let promptEnd = 0;

    beforeAll(async () => {
      work = await mkdtemp(path.join(tmpdir(), "kvts-guest-"));
      const iso = await makeCloudInitIso(work, scenario.cloudInit);
      vm = QemuVm.start([...machine, ...scenario.qemuArgs(image, iso)], work);
      shellPrompt = new RegExp(`root@${scenario.hostname}:~# `);
    });

    afterAll(async () => {
      vm?.kill();
      await vm?.waitForExit(10_000);
      await rm(work, { recursive: true, force: true });
    });

    const running = (): QemuVm => {
      if (!vm) throw new Error("QEMU did not start");
      return vm;
    };

    // One guest per scenario; its checks run in order on it.
    const step = (name: string, check: () => Promise<void>, timeoutMs = STEP_TIMEOUT_MS): void => {
      it(name, check, timeoutMs);
    };

    step(
      "prints the banner and reaches a shell whose prompt shows the cloud-init hostname",
      async () => {
        const banner = await running().waitFor(/kubevirt-ts test guest: up/, BOOT_TIMEOUT_MS);
        const shell = await running().waitFor(shellPrompt, BOOT_TIMEOUT_MS);
        promptEnd = shell.end;
        const seconds = (ms: number): string => (ms / 1000).toFixed(1);
        console.log(
          `${scenario.name}: banner ${seconds(banner.atMs)} s, boot-to-shell ${seconds(shell.atMs)} s`,
        );
      },
      BOOT_TIMEOUT_MS,
    );

    step("applies the hostname and runs the user-data", async () => {
      await running().waitFor(
        new RegExp(`cloud-init: applied hostname ${scenario.hostname}\\r?\\n`),
        STEP_TIMEOUT_MS,
      );
      for (const output of scenario.userDataOutput) await running().waitFor(output, STEP_TIMEOUT_MS);
    });

    step("gets a DHCP lease on eth0", async () => {
      await running().waitFor(/udhcpc: eth0 bound 10\.0\.2\.15\/24/, STEP_TIMEOUT_MS);
    });

    step("answers a typed command on the serial console", async () => {
      running().type("echo $((6*7))\n");
      const answer = await running().waitFor(/\n42\r?\n/, STEP_TIMEOUT_MS, promptEnd);
      promptEnd = (await running().waitFor(shellPrompt, STEP_TIMEOUT_MS, answer.end)).end;
    });

    step("starts a new shell when the shell exits", async () => {
      running().type("exit\n");
      const banner = await running().waitFor(/built-in shell \(ash\)/, STEP_TIMEOUT_MS, promptEnd);
      await running().waitFor(shellPrompt, STEP_TIMEOUT_MS, banner.end);
    });

    step("powers off on the ACPI power button", async () => {
      await running().powerdown();
      await running().waitFor(/ACPI power button pressed, powering off/, STEP_TIMEOUT_MS);
      expect(await running().waitForExit(STEP_TIMEOUT_MS)).toBe(0);
    });
  });
});
