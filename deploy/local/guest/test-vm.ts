// A test guest booted the way a VMI would run it, for the boot tests: the image's disk (or its
// kernel-boot files), a cloud-init ISO, a virtio NIC on QEMU's user network with only the guest's
// ssh port forwarded to 127.0.0.1, and the guest agent's virtio-serial port on a unix socket.
// `-netdev user,restrict=on`: the guest reaches QEMU's own DHCP server and nothing beyond this
// process; hostfwd rules still work (QEMU documents that restrict leaves them alone).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { makeCloudInitIso, type CloudInitVolume } from "./cloud-init-iso.js";
import { QemuVm } from "./qemu-vm.js";
import { QmpClient } from "./qmp.js";
import { freeLocalPort, sshRunWhenUp, type SshAuth } from "./ssh-client.js";

export interface TestVmOptions {
  /** QEMU arguments that boot it: the image's disk, or -kernel/-initrd/-append. */
  boot: string[];
  cloudInit: CloudInitVolume;
  /** How the ISO is attached: a virtio disk (default) or a SATA CD-ROM. */
  isoBus?: "virtio" | "cdrom";
  /** Let guest reboots and resets restart the guest (default: QEMU ends, -no-reboot). */
  allowReboot?: boolean;
}

export class TestVm {
  private constructor(
    readonly vm: QemuVm,
    readonly workDir: string,
    readonly sshPort: number,
    readonly agentSocket: string,
  ) {}

  static async start(options: TestVmOptions): Promise<TestVm> {
    const workDir = await mkdtemp(path.join(tmpdir(), "kvts-guest-"));
    const iso = await makeCloudInitIso(workDir, options.cloudInit);
    const sshPort = await freeLocalPort();
    const agentSocket = path.join(workDir, "qga.sock");
    const isoArgs =
      options.isoBus === "cdrom"
        ? ["-cdrom", iso]
        : ["-drive", `file=${iso},if=virtio,format=raw,readonly=on`];
    const args = [
      ...["-machine", "q35", "-accel", "tcg", "-m", "256", "-smp", "1"],
      ...(options.allowReboot ? [] : ["-no-reboot"]),
      ...options.boot,
      ...isoArgs,
      ...["-netdev", `user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:${sshPort}-:22`],
      ...["-device", "virtio-net-pci,netdev=net0"],
      ...["-device", "virtio-serial-pci,id=serial0"],
      ...["-chardev", `socket,id=agent0,path=${agentSocket},server=on,wait=off`],
      ...["-device", "virtserialport,chardev=agent0,name=org.qemu.guest_agent.0"],
    ];
    return new TestVm(QemuVm.start(args, workDir), workDir, sshPort, agentSocket);
  }

  /** Runs a command in the guest over ssh (retried while sshd comes up). */
  ssh(user: string, auth: SshAuth, command: string): Promise<string> {
    return sshRunWhenUp({ port: this.sshPort, user, auth, workDir: this.workDir }, command);
  }

  /** A guest agent connection, once the agent answers (it starts late in the boot). */
  async agent(timeoutMs = 120_000): Promise<QmpClient> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      try {
        return await QmpClient.connectGuestAgent(this.agentSocket, 3_000);
      } catch (error) {
        if (performance.now() > deadline) throw error;
        await sleep(1_000);
      }
    }
  }

  /** One QMP command (system_reset, system_powerdown, ...). */
  async qmp(command: string): Promise<unknown> {
    const qmp = await QmpClient.connect(this.vm.qmpSocket);
    try {
      return await qmp.execute(command);
    } finally {
      qmp.close();
    }
  }

  async stop(): Promise<void> {
    this.vm.kill();
    await this.vm.waitForExit(10_000);
    await rm(this.workDir, { recursive: true, force: true });
  }
}
