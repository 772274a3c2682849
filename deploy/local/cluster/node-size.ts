// The size every simulated node declares (cpu, memory, pods). The nodes share one machine, so their
// capacity is the cluster's configuration, not a measurement; `make up NODE_CPUS=16 NODE_MEMORY=32Gi`
// overrides the defaults (the node agent's: 8 CPUs, 16Gi, 110 pods).
import { z } from "zod";
import { DEFAULT_NODE_SIZE } from "../node-agent/flags.js";
import { parseQuantity } from "../node-agent/quantity.js";

export interface NodeSize {
  cpus: number;
  /** A memory quantity as the node agent's --memory takes it, e.g. 16Gi. */
  memory: string;
  maxPods: number;
}

export const defaultNodeSize: NodeSize = { ...DEFAULT_NODE_SIZE };

const isMemoryQuantity = (value: string): boolean => {
  try {
    return parseQuantity(value) > 0;
  } catch {
    return false;
  }
};

const envSchema = z.object({
  NODE_CPUS: z.coerce.number().int("must be a whole number of CPUs").min(1).default(defaultNodeSize.cpus),
  NODE_MEMORY: z
    .string()
    .refine(isMemoryQuantity, "must be a memory quantity such as 16Gi")
    .default(defaultNodeSize.memory),
  NODE_MAX_PODS: z.coerce.number().int().min(1).default(defaultNodeSize.maxPods),
});

/** The node size from NODE_CPUS, NODE_MEMORY and NODE_MAX_PODS; unset (or empty) ones keep the default. */
export function nodeSizeFromEnv(env: NodeJS.ProcessEnv): NodeSize {
  const given = (name: string) => (env[name] === "" ? undefined : env[name]);
  const parsed = envSchema.safeParse({
    NODE_CPUS: given("NODE_CPUS"),
    NODE_MEMORY: given("NODE_MEMORY"),
    NODE_MAX_PODS: given("NODE_MAX_PODS"),
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`);
    throw new Error(`invalid node size:\n  ${problems.join("\n  ")}`);
  }
  return { cpus: parsed.data.NODE_CPUS, memory: parsed.data.NODE_MEMORY, maxPods: parsed.data.NODE_MAX_PODS };
}

/** The node agent's flags for a size. */
export function nodeSizeFlags(size: NodeSize): string[] {
  return ["--cpus", String(size.cpus), "--memory", size.memory, "--max-pods", String(size.maxPods)];
}

export const describeNodeSize = (size: NodeSize): string =>
  `${size.cpus} CPUs, ${size.memory} memory, ${size.maxPods} pods per node`;
