import {
  commandLine,
  dnsLabel,
  kubectlArgs,
  kubectlOptions,
  parseBenchArgs,
  positiveInteger,
} from "../common/command-line.js";
import type { KubectlOptions } from "../common/kubectl.js";

// The benchmark's command line, and the line printed with its figures that reproduces them.

export const USAGE =
  "usage: npx tsx bench/vm-boot/main.ts [--runs 3] [--namespace bench-vm-boot] [--vm bench-vm-boot] " +
  "[--image <the test guest's folder>] [--kubeconfig .local/kubeconfig] [--kubectl <the cluster's kubectl>]";

export interface VmBootBenchOptions extends KubectlOptions {
  runs: number;
  /** The benchmark's own namespace: created if missing, deleted afterwards if the benchmark created it. */
  namespace: string;
  vm: string;
  /** The test guest's image folder (disk/disk.qcow2), booted bare. */
  image: string;
}

export interface Defaults extends KubectlOptions {
  image: string;
}

export function parseOptions(args: readonly string[], defaults: Defaults): VmBootBenchOptions {
  const values = parseBenchArgs(
    args,
    {
      runs: { type: "string", default: "3" },
      namespace: { type: "string", default: "bench-vm-boot" },
      vm: { type: "string", default: "bench-vm-boot" },
      image: { type: "string", default: defaults.image },
      ...kubectlOptions(defaults),
    },
    USAGE,
  );
  const runs = positiveInteger("runs", values.runs);
  for (const name of ["namespace", "vm"] as const) dnsLabel(name, values[name]);
  return { ...values, runs };
}

/** Every choice spelled out, but the image and the cluster's files when they are the defaults. */
export function formatCommandLine(options: VmBootBenchOptions, defaults: Defaults): string {
  const args = ["--runs", String(options.runs), "--namespace", options.namespace, "--vm", options.vm];
  if (options.image !== defaults.image) args.push("--image", options.image);
  args.push(...kubectlArgs(options, defaults));
  return commandLine("bench/vm-boot/main.ts", args);
}
