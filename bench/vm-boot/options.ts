import { parseArgs } from "node:util";
import { BenchError } from "../common/bench-error.js";
import { commandLine } from "../common/command-line.js";

// The benchmark's command line, and the line printed with its figures that reproduces them.

export const USAGE =
  "usage: npx tsx bench/vm-boot/main.ts [--runs 3] [--namespace bench-vm-boot] [--vm bench-vm-boot] " +
  "[--image <the test guest's folder>] [--kubeconfig .local/kubeconfig] [--kubectl <the cluster's kubectl>]";

export interface VmBootBenchOptions {
  runs: number;
  /** The benchmark's own namespace: created if missing, deleted afterwards if the benchmark created it. */
  namespace: string;
  vm: string;
  /** The test guest's image folder (disk/disk.qcow2), booted bare. */
  image: string;
  kubeconfig: string;
  kubectl: string;
}

export interface Defaults {
  image: string;
  kubeconfig: string;
  kubectl: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function parseOptions(args: readonly string[], defaults: Defaults): VmBootBenchOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        runs: { type: "string", default: "3" },
        namespace: { type: "string", default: "bench-vm-boot" },
        vm: { type: "string", default: "bench-vm-boot" },
        image: { type: "string", default: defaults.image },
        kubeconfig: { type: "string", default: defaults.kubeconfig },
        kubectl: { type: "string", default: defaults.kubectl },
      },
    }));
  } catch (error) {
    throw new BenchError(`${(error as Error).message}\n${USAGE}`);
  }
  if (!/^[1-9]\d*$/.test(values.runs))
    throw new BenchError(`--runs wants a positive whole number, not ${values.runs}`);
  for (const name of ["namespace", "vm"] as const) {
    if (!DNS_LABEL.test(values[name]))
      throw new BenchError(`--${name} wants a DNS label, not ${values[name]}`);
  }
  return { ...values, runs: Number(values.runs) };
}

/** Every choice spelled out, but the image and the cluster's files when they are the defaults. */
export function formatCommandLine(options: VmBootBenchOptions, defaults: Defaults): string {
  const args = ["--runs", String(options.runs), "--namespace", options.namespace, "--vm", options.vm];
  if (options.image !== defaults.image) args.push("--image", options.image);
  if (options.kubeconfig !== defaults.kubeconfig) args.push("--kubeconfig", options.kubeconfig);
  if (options.kubectl !== defaults.kubectl) args.push("--kubectl", options.kubectl);
  return commandLine("bench/vm-boot/main.ts", args);
}
