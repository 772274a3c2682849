import { execFile } from "node:child_process";

// The machine-type labels virt-handler puts on its Node, as upstream's node labeller names them:
// `machine-type.node.kubevirt.io/<name>=true` for every q35 machine QEMU offers on amd64 (the alias `q35` and
// the versioned `pc-q35-*`). The launcher Pod's nodeSelector asks for the one its VMI uses.

export const SUPPORTED_MACHINE_TYPE_LABEL = "machine-type.node.kubevirt.io/";

/** Used when QEMU cannot be asked: the alias every q35-capable QEMU offers. */
export const FALLBACK_MACHINE_TYPES = ["q35"];

const q35Family = /^(q35|pc-q35-[0-9.]+)$/;

/** Machine names from the output of `qemu-system-x86_64 -machine help`, keeping the q35 family. */
export function parseMachineHelp(output: string): string[] {
  const names = output
    .split("\n")
    .map((line) => line.trim().split(/\s+/)[0] ?? "")
    .filter((name) => q35Family.test(name));
  return [...new Set(names)].sort();
}

export function machineTypeLabels(machines: readonly string[]): Record<string, string> {
  return Object.fromEntries(machines.map((name) => [SUPPORTED_MACHINE_TYPE_LABEL + name, "true"]));
}

/** Asks the QEMU binary for its machines; falls back to `q35` when it is absent or fails. */
export function detectMachineTypes(qemuBinary = "qemu-system-x86_64"): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(qemuBinary, ["-machine", "help"], { timeout: 10_000 }, (error, stdout) => {
      const found = error ? [] : parseMachineHelp(stdout);
      resolve(found.length > 0 ? found : [...FALLBACK_MACHINE_TYPES]);
    });
  });
}
