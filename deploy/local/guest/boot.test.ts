// Builds the test guest (cached) and boots its images under plain QEMU TCG, the way a VMI would
// (test-vm.ts): the default image from its containerDisk with a NoCloud ISO and by kernel boot with
// a ConfigDrive on a SATA CD-ROM, then each stand-in personality the way upstream's console helpers
// (tests/console/login.go: LoginToCirros, LoginToAlpine, LoginToFedora) log in, plus ssh, the guest
// agent, the boot counter across reboots and resets, and poweroff.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDriveVolume, noCloudVolume, type CloudInitVolume } from "./cloud-init-iso.js";
import type { ConsoleMatch } from "./qemu-vm.js";
import type { QmpClient } from "./qmp.js";
import { makeSshKey } from "./ssh-client.js";
import {
  buildTestGuest,
  PERSONALITIES,
  personalityRoot,
  testGuestImage,
  testGuestRoot,
  type Personality,
  type TestGuestImage,
} from "./test-guest.js";
import { TestVm } from "./test-vm.js";
import { runnable, unlessRoot } from "../../../pkg/testutils/requirement.js";

// building the image needs root (apt-get)
const isRoot = runnable("the test guest boot tests", unlessRoot());

// TCG on two shared cores: generous bounds, the measured times are printed.
const BOOT_TIMEOUT_MS = 300_000;
const STEP_TIMEOUT_MS = 90_000;
/** Upstream's prompt expression (tests/console/console.go PromptExpression). */
const PROMPT = /(\$ |# )/;

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

interface Scenario {
  name: string;
  cloudInit: CloudInitVolume;
  hostname: string;
  /** Console lines the user-data's code must produce (proving it ran, not just that it was read). */
  userDataOutput: RegExp[];
  boot: (image: TestGuestImage) => string[];
  isoBus: "virtio" | "cdrom";
}

const diskBoot = (image: TestGuestImage): string[] => [
  ...["-drive", `file=${image.disk},if=virtio,format=qcow2,snapshot=on`],
];

/** The default image (kubevirt-ts/test-guest): its login-free root shell, which the e2e tests use. */
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
    boot: diskBoot,
    isoBus: "virtio",
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
    boot: (image) => ["-kernel", image.kernel, "-initrd", image.initrd, "-append", "console=ttyS0 quiet"],
    isoBus: "cdrom",
  },
];

describe.runIf(isRoot)("test guest image", () => {
  let image: TestGuestImage;
  let keyDir: string;
  let sshKey: string;
  let sshPublicKey: string;

  beforeAll(async () => {
    const started = performance.now();
    image = await buildTestGuest({ withTestTools: true, onOutput: (line) => console.log(line) });
    console.log(`test guest build (cached if nothing changed): ${seconds(performance.now() - started)} s`);
  }, 1_200_000);

  // One key pair for every ssh login below.
  beforeAll(async () => {
    keyDir = await mkdtemp(path.join(tmpdir(), "kvts-guest-key-"));
    sshKey = path.join(keyDir, "id_ed25519");
    sshPublicKey = await makeSshKey(sshKey);
  });
  afterAll(async () => rm(keyDir, { recursive: true, force: true }));

  it("is built where testGuestRoot() (the image store's lookup) says", () => {
    expect(image.root).toBe(testGuestRoot());
  });

  it("builds one image per personality, each initramfs naming its own (the default none)", async () => {
    for (const personality of PERSONALITIES) {
      // the appended archive: a cpio entry etc/kubevirt-ts/image-personality holding the name
      const initramfs = gunzipSync(
        await readFile(testGuestImage(personalityRoot(personality, image.root)).initrd),
      );
      const marker = /etc\/kubevirt-ts\/image-personality\0+([a-z-]+)\n/.exec(initramfs.toString("latin1"));
      expect(marker?.[1]).toBe(personality === "test-guest" ? undefined : personality);
    }
  });

  /** Boots one guest per describe block; its `it`s run in order on it. */
  function guestFor(start: () => Promise<TestVm>): () => TestVm {
    let guest: TestVm | undefined;
    beforeAll(async () => {
      guest = await start();
    });
    afterAll(async () => guest?.stop());
    return () => {
      if (!guest) throw new Error("QEMU did not start");
      return guest;
    };
  }

  describe.each(scenarios)("$name", (scenario) => {
    const guest = guestFor(() =>
      TestVm.start({ boot: scenario.boot(image), cloudInit: scenario.cloudInit, isoBus: scenario.isoBus }),
    );
    const shellPrompt = new RegExp(`root@${scenario.hostname}:~# `);
    let promptEnd = 0;

    it(
      "prints the banner and reaches a shell whose prompt shows the cloud-init hostname",
      async () => {
        const banner = await guest().vm.waitFor(/kubevirt-ts test guest: up/, BOOT_TIMEOUT_MS);
        const shell = await guest().vm.waitFor(shellPrompt, BOOT_TIMEOUT_MS);
        promptEnd = shell.end;
        console.log(
          `${scenario.name}: banner ${seconds(banner.atMs)} s, boot-to-shell ${seconds(shell.atMs)} s`,
        );
      },
      BOOT_TIMEOUT_MS,
    );

    it("applies the hostname and runs the user-data", async () => {
      await guest().vm.waitFor(
        new RegExp(`cloud-init: applied hostname ${scenario.hostname}\\r?\\n`),
        STEP_TIMEOUT_MS,
      );
      for (const output of scenario.userDataOutput) await guest().vm.waitFor(output, STEP_TIMEOUT_MS);
    });

    it("gets a DHCP lease on eth0", async () => {
      await guest().vm.waitFor(/udhcpc: eth0 bound 10\.0\.2\.15\/24/, STEP_TIMEOUT_MS);
    });

    it("answers a typed command on the serial console", async () => {
      guest().vm.type("echo $((6*7))\n");
      const answer = await guest().vm.waitFor(/\n42\r?\n/, STEP_TIMEOUT_MS, promptEnd);
      promptEnd = (await guest().vm.waitFor(shellPrompt, STEP_TIMEOUT_MS, answer.end)).end;
    });

    it("starts a new shell when the shell exits", async () => {
      guest().vm.type("exit\n");
      const banner = await guest().vm.waitFor(/built-in shell \(ash\)/, STEP_TIMEOUT_MS, promptEnd);
      await guest().vm.waitFor(shellPrompt, STEP_TIMEOUT_MS, banner.end);
    });

    it("powers off on the ACPI power button", async () => {
      await guest().vm.powerdown();
      await guest().vm.waitFor(/ACPI power button pressed, powering off/, STEP_TIMEOUT_MS);
      expect(await guest().vm.waitForExit(STEP_TIMEOUT_MS)).toBe(0);
    });
  });

  const personalityDisk = (personality: Personality): string[] =>
    diskBoot(testGuestImage(personalityRoot(personality, image.root)));

  /** What a console login printed, and where the console stood after it. */
  interface Login {
    prompt: ConsoleMatch;
    bootToLoginPromptMs: number;
  }

  /** Waits for the first login prompt, as upstream's helpers do before they type. */
  async function firstLoginPrompt(guest: TestVm, host: string): Promise<ConsoleMatch> {
    const console = await guest.vm.waitFor(/starting the console/, BOOT_TIMEOUT_MS);
    return guest.vm.waitFor(new RegExp(`${host} login: `), BOOT_TIMEOUT_MS, console.end);
  }

  describe("cirros personality (quay.io/kubevirt/cirros-container-disk-demo)", () => {
    const host = "cirros-vmi";
    const rootPassword = "r00t-from-chpasswd";
    const guest = guestFor(() =>
      TestVm.start({
        boot: personalityDisk("cirros"),
        cloudInit: noCloudVolume({
          metaData: JSON.stringify({ "instance-id": "cirros.default", "local-hostname": host }),
          userData: [
            "#cloud-config",
            "chpasswd:",
            "  expire: False",
            "  list: |",
            `    root:${rootPassword}`,
            "ssh_authorized_keys:",
            `  - ${sshPublicKey}`,
            "",
          ].join("\n"),
        }),
      }),
    );
    let login: Login;

    it(
      "logs in as LoginToCirros does: the banner line, `<hostname> login:`, cirros/gocubsgo, a `$ ` prompt",
      async () => {
        const first = await firstLoginPrompt(guest(), host);
        guest().vm.type("\n");
        const banner = await guest().vm.waitFor(
          /login as 'cirros' user\. default password: 'gocubsgo'\. use 'sudo' for root\./,
          STEP_TIMEOUT_MS,
          first.end,
        );
        guest().vm.type("\n");
        const loginPrompt = await guest().vm.waitFor(
          new RegExp(`${host} login:`),
          STEP_TIMEOUT_MS,
          banner.end,
        );
        guest().vm.type("cirros\n");
        const password = await guest().vm.waitFor(/Password:/, STEP_TIMEOUT_MS, loginPrompt.end);
        guest().vm.type("gocubsgo\n");
        const prompt = await guest().vm.waitFor(/\$ /, STEP_TIMEOUT_MS, password.end);
        login = { prompt, bootToLoginPromptMs: first.atMs };
        console.log(`cirros: boot-to-login-prompt ${seconds(first.atMs)} s`);
      },
      BOOT_TIMEOUT_MS,
    );

    it("runs the shell as cirros, with a working sudo (configureConsole's `sudo dmesg -n 1`)", async () => {
      guest().vm.type("id -un; sudo id -un; sudo dmesg -n 1; echo status=$?\n");
      const answer = await guest().vm.waitFor(
        /\ncirros\r?\nroot\r?\nstatus=0\r?\n/,
        STEP_TIMEOUT_MS,
        login.prompt.end,
      );
      await guest().vm.waitFor(/\$ /, STEP_TIMEOUT_MS, answer.end);
    });

    it("takes ssh logins: cirros with the cloud-init key and with its password, root with chpasswd's", async () => {
      expect(await guest().ssh("cirros", { key: sshKey }, "id -un")).toBe("cirros\n");
      expect(await guest().ssh("cirros", { password: "gocubsgo" }, "id -un")).toBe("cirros\n");
      expect(await guest().ssh("root", { password: rootPassword }, "id -un")).toBe("root\n");
      await expect(guest().ssh("cirros", { password: "wrong" }, "true")).rejects.toThrow(/Permission denied/);
    });

    it("runs no guest agent, as the real CirrOS image", async () => {
      expect(await guest().ssh("cirros", { key: sshKey }, "pidof qemu-ga || echo none")).toBe("none\n");
    });

    it("powers off on the ACPI power button", async () => {
      await guest().vm.powerdown();
      expect(await guest().vm.waitForExit(STEP_TIMEOUT_MS)).toBe(0);
    });
  });

  // alpine-with-test-tooling is the alpine personality (BASE=alpine) plus the guest agent: booting
  // it covers both, and the agent-less case is the cirros test's.
  describe("alpine personality (quay.io/kubevirt/alpine-with-test-tooling-container-disk)", () => {
    const host = "alpine-vmi";
    const guest = guestFor(() =>
      TestVm.start({
        boot: personalityDisk("alpine-with-test-tooling"),
        cloudInit: noCloudVolume({
          metaData: JSON.stringify({ "instance-id": "alpine.default", "local-hostname": host }),
          userData: "#cloud-config\n",
        }),
      }),
    );

    it(
      "logs in as LoginToAlpine does: `(localhost|<hostname>) login: `, root without a password, `<hostname>:~# `",
      async () => {
        const first = await firstLoginPrompt(guest(), `(localhost|${host})`);
        guest().vm.type("\n");
        const loginPrompt = await guest().vm.waitFor(
          new RegExp(`(localhost|${host}) login: `),
          STEP_TIMEOUT_MS,
          first.end,
        );
        guest().vm.type("root\n");
        const prompt = await guest().vm.waitFor(PROMPT, STEP_TIMEOUT_MS, loginPrompt.end);
        expect(guest().vm.console.slice(loginPrompt.end, prompt.end)).not.toContain("Password:");
        await guest().vm.waitFor(new RegExp(`${host}:~# `), STEP_TIMEOUT_MS, loginPrompt.end);
        console.log(`alpine: boot-to-login-prompt ${seconds(first.atMs)} s`);
      },
      BOOT_TIMEOUT_MS,
    );

    it("has the guest agent (its os-release is Alpine's)", async () => {
      const agent = await guest().agent();
      try {
        expect(await agent.execute("guest-get-osinfo")).toMatchObject({ id: "alpine", name: "Alpine Linux" });
      } finally {
        agent.close();
      }
    });

    it("powers off when `poweroff` is typed", async () => {
      guest().vm.type("poweroff\n");
      await guest().vm.waitFor(/kubevirt-ts test guest: shutting down/, STEP_TIMEOUT_MS);
      expect(await guest().vm.waitForExit(STEP_TIMEOUT_MS)).toBe(0);
    });
  });

  describe("fedora personality (quay.io/kubevirt/fedora-with-test-tooling-container-disk)", () => {
    const host = "fedora-vmi";
    const password = "s3cret-from-cloud-init";
    const guest = guestFor(() =>
      TestVm.start({
        boot: personalityDisk("fedora"),
        allowReboot: true,
        cloudInit: noCloudVolume({
          metaData: JSON.stringify({ "instance-id": "fedora.default", "local-hostname": host }),
          // as upstream's tests write it (libvmici / tests/libvmifact)
          userData: [
            "#cloud-config",
            `password: ${password}`,
            "chpasswd: { expire: False }",
            "ssh_pwauth: true",
            "ssh_authorized_keys:",
            `  - ${sshPublicKey}`,
            "",
          ].join("\n"),
        }),
      }),
    );
    let agent: QmpClient | undefined;
    const connectedAgent = (): QmpClient => {
      if (!agent) throw new Error("no guest agent connection");
      return agent;
    };
    afterAll(() => agent?.close());
    let after = 0;

    it(
      "logs in as LoginToFedora does: fedora with the cloud-init password, `[fedora@<host> ~]$ `, then `sudo su`",
      async () => {
        const first = await firstLoginPrompt(guest(), `(localhost|fedora|${host})`);
        guest().vm.type("\n");
        const loginPrompt = await guest().vm.waitFor(
          new RegExp(`(localhost|fedora|${host}) login: `),
          STEP_TIMEOUT_MS,
          first.end,
        );
        guest().vm.type("fedora\n");
        const passwordPrompt = await guest().vm.waitFor(/Password:/, STEP_TIMEOUT_MS, loginPrompt.end);
        guest().vm.type(`${password}\n`);
        const user = await guest().vm.waitFor(
          new RegExp(`\\[fedora@${host} ~\\]\\$ `),
          STEP_TIMEOUT_MS,
          passwordPrompt.end,
        );
        guest().vm.type("sudo su\n");
        const root = await guest().vm.waitFor(
          new RegExp(`\\[root@${host} fedora\\]# `),
          STEP_TIMEOUT_MS,
          user.end,
        );
        after = root.end;
        console.log(`fedora: boot-to-login-prompt ${seconds(first.atMs)} s`);
      },
      BOOT_TIMEOUT_MS,
    );

    it("counts this as boot 1 (console, /run/boot-count)", async () => {
      await guest().vm.waitFor(/kubevirt-ts test guest: boot 1\r?\n/, STEP_TIMEOUT_MS);
      expect(await guest().ssh("fedora", { key: sshKey }, "cat /run/boot-count /boot/bootcount")).toBe(
        "1\n1\n",
      );
    });

    it("answers the guest agent: ping, info, osinfo, host name, the logged-in user, interfaces", async () => {
      agent = await guest().agent();
      expect(await connectedAgent().execute("guest-ping")).toEqual({});
      expect(await connectedAgent().execute("guest-info")).toMatchObject({ version: expect.any(String) });
      expect(await connectedAgent().execute("guest-get-osinfo")).toMatchObject({
        id: "fedora",
        name: "Fedora Linux",
        "version-id": "41",
        machine: "x86_64",
        "kernel-release": expect.stringContaining("cloud-amd64"),
      });
      expect(await connectedAgent().execute("guest-get-host-name")).toEqual({ "host-name": host });
      expect(await connectedAgent().execute("guest-get-users")).toEqual([
        { user: "fedora", "login-time": expect.any(Number) },
      ]);
      const interfaces = (await connectedAgent().execute("guest-network-get-interfaces")) as unknown[];
      expect(interfaces).toContainEqual(
        expect.objectContaining({
          name: "eth0",
          "ip-addresses": expect.arrayContaining([
            { "ip-address-type": "ipv4", "ip-address": "10.0.2.15", prefix: 24 },
          ]),
        }),
      );
      expect(await connectedAgent().execute("guest-get-timezone")).toMatchObject({ offset: 0 });
      const rss = await guest().ssh("fedora", { key: sshKey }, "grep VmRSS /proc/$(pidof qemu-ga)/status");
      console.log(`fedora: qemu-ga ${rss.trim()}`);
    });

    it("lists the boot disk's file systems and freezes the ext4 one (FAT cannot freeze)", async () => {
      const filesystems = (await connectedAgent().execute("guest-get-fsinfo")) as unknown[];
      const onVirtio = expect.arrayContaining([expect.objectContaining({ "bus-type": "virtio" })]);
      expect(filesystems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ mountpoint: "/boot", type: "vfat", name: "vda1", disk: onVirtio }),
          expect.objectContaining({ mountpoint: "/data", type: "ext4", name: "vda2", disk: onVirtio }),
        ]),
      );
      expect(await connectedAgent().execute("guest-fsfreeze-status")).toBe("thawed");
      expect(await connectedAgent().execute("guest-fsfreeze-freeze")).toBe(1);
      expect(await connectedAgent().execute("guest-fsfreeze-status")).toBe("frozen");
      expect(await connectedAgent().execute("guest-fsfreeze-thaw")).toBe(1);
      expect(await connectedAgent().execute("guest-fsfreeze-status")).toBe("thawed");
    });

    it("takes ssh logins: fedora with the cloud-init key and (ssh_pwauth: true) password", async () => {
      expect(await guest().ssh("fedora", { key: sshKey }, "id -un; sudo id -un")).toBe("fedora\nroot\n");
      expect(await guest().ssh("fedora", { password }, "id -un")).toBe("fedora\n");
    });

    it("sets a password through the agent (guest-set-user-password, as accessCredentials do)", async () => {
      const newPassword = "from-the-agent";
      await connectedAgent().execute("guest-set-user-password", {
        username: "fedora",
        password: Buffer.from(newPassword).toString("base64"),
        crypted: false,
      });
      expect(await guest().ssh("fedora", { password: newPassword }, "id -un")).toBe("fedora\n");
      await expect(guest().ssh("fedora", { password }, "true")).rejects.toThrow(/Permission denied/);
    });

    /** Waits for `boot N` on the console after `from`, and for its console to be back. */
    async function bootNumber(n: number, from: number, what: string): Promise<void> {
      const started = performance.now();
      const boot = await guest().vm.waitFor(
        new RegExp(`kubevirt-ts test guest: boot ${n}\\r?\\n`),
        BOOT_TIMEOUT_MS,
        from,
      );
      const login = await guest().vm.waitFor(/login: /, BOOT_TIMEOUT_MS, boot.end);
      after = login.end;
      console.log(`fedora: ${what} to login prompt ${seconds(performance.now() - started)} s`);
    }

    it(
      "reboots on the agent's guest-shutdown (mode reboot) and counts boot 2",
      async () => {
        const from = guest().vm.console.length;
        connectedAgent().send("guest-shutdown", { mode: "reboot" });
        await guest().vm.waitFor(/shutdown \(reboot\): hypervisor initiated shutdown/, STEP_TIMEOUT_MS, from);
        await bootNumber(2, from, "guest-shutdown reboot");
      },
      BOOT_TIMEOUT_MS,
    );

    it(
      "counts boot 3 after a QMP system_reset (same QEMU, same disk overlay)",
      async () => {
        const from = guest().vm.console.length;
        await guest().qmp("system_reset");
        await bootNumber(3, from, "system_reset");
      },
      BOOT_TIMEOUT_MS,
    );

    it(
      "counts boot 4 after `reboot` in the guest, readable in /boot/bootcount",
      async () => {
        const from = guest().vm.console.length;
        // Detached and a moment later, so the ssh session ends before the guest goes down.
        await guest().ssh(
          "fedora",
          { key: sshKey },
          "setsid sh -c 'sleep 1; sudo reboot' </dev/null >/dev/null 2>&1 &",
        );
        await bootNumber(4, from, "sudo reboot");
        expect(await guest().ssh("fedora", { key: sshKey }, "cat /boot/bootcount")).toBe("4\n");
      },
      BOOT_TIMEOUT_MS,
    );

    it("powers off on the agent's guest-shutdown (mode powerdown)", async () => {
      agent?.close();
      agent = await guest().agent();
      connectedAgent().send("guest-shutdown", { mode: "powerdown" });
      await guest().vm.waitFor(/shutdown \(poweroff\)/, STEP_TIMEOUT_MS, after);
      expect(await guest().vm.waitForExit(STEP_TIMEOUT_MS)).toBe(0);
    });
  });
});
