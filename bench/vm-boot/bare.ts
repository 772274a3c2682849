import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { QemuVm } from "../../deploy/local/guest/qemu-vm.js";
import { testGuestImage } from "../../deploy/local/guest/test-guest.js";
import { BenchError } from "../common/bench-error.js";
import { awaitAnswer, type ConsoleAnswer, type SerialConsole } from "./probe.js";

// The same guest booted bare, as deploy/local/guest's boot tests boot it (QemuVm: serial console on
// stdio, QMP on a socket), sized as the benchmark's VM: q35, TCG, 128 MiB, one vCPU, the containerDisk's
// qcow2 as a virtio disk, writes to a throw-away overlay (snapshot=on). No network device at all
// (-nic none): nothing leaves the process. Stopped by the PID this benchmark started.

export function bareQemuArgs(disk: string): string[] {
  return [
    ...["-machine", "q35", "-accel", "tcg", "-m", "128", "-smp", "1"],
    ...["-nic", "none", "-no-reboot"],
    ...["-drive", `file=${disk},if=virtio,format=qcow2,snapshot=on`],
  ];
}

export interface BareBoot extends ConsoleAnswer {
  /** performance.now() just before QEMU was started. */
  startMs: number;
  pid: number | undefined;
}

function qemuConsole(vm: QemuVm): SerialConsole {
  return {
    get transcript() {
      return vm.console;
    },
    type: (text) => vm.type(text),
    waitFor: async (pattern, timeoutMs, from) => {
      const seen = await vm.waitFor(pattern, timeoutMs, from).catch((error: unknown) => {
        throw new BenchError(`bare QEMU: ${(error as Error).message}`);
      });
      return { match: seen.match, end: seen.end, atMs: performance.now() };
    },
  };
}

export async function bootBare(imageRoot: string, timeoutMs: number): Promise<BareBoot> {
  const { disk } = testGuestImage(imageRoot);
  await access(disk).catch(() => {
    throw new BenchError(`no test guest disk at ${disk}: build it with make guest`);
  });
  const workDir = await mkdtemp(path.join(tmpdir(), "bench-vm-boot-"));
  const startMs = performance.now();
  const vm = QemuVm.start(bareQemuArgs(disk), workDir);
  try {
    const answer = await awaitAnswer(qemuConsole(vm), timeoutMs);
    return { ...answer, startMs, pid: vm.pid };
  } finally {
    // SIGKILL to the PID QemuVm spawned, nothing found by name.
    vm.kill();
    await vm.waitForExit(10_000);
    await rm(workDir, { recursive: true, force: true });
  }
}
