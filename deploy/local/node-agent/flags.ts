import { parseArgs } from "node:util";
import { z } from "zod";
import { parseQuantity } from "./quantity.js";

// The agent's command line:
//   main.ts --node <name> --pod-cidr <cidr> --kubeconfig <path> --state-dir <dir> --ca-cert <pem> --ca-key <pem>
// The node IP defaults to the first address of the pod CIDR (the node bridge's address).
// --cluster-dns, --cluster-domain, --resolv-conf and --max-pods are kubelet's flags, with its defaults.
// --cpus and --memory declare the node's size: every simulated node shares one machine, so its
// capacity is what the cluster says it is, not what the machine has.
// --loop-devices is the loop-device record `make up` writes (.local/loop-devices.json): with it the agent
// recycles its node's Released local-block PVs (local-block-recycler.ts), wiping only the devices the
// record names.
// --multus-kubeconfig is multus's identity (the pods' CNI runs through multus, which reads their
// NetworkAttachmentDefinitions and writes their network-status); without it multus runs only the
// cluster network.
// --component-images built runs KubeVirt's component Pods from the root filesystems of the images `make images`
// built from the Dockerfiles; checkout (the default) runs this checkout's bundles on the host's files.

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const CIDR = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})\/(\d{1,2})$/;

/** The size a node declares when the cluster says nothing else. */
export const DEFAULT_NODE_SIZE = { cpus: 8, memory: "16Gi", maxPods: 110 } as const;

/** Bytes of a memory quantity ("16Gi", "17179869184"), or undefined when it is not one. */
function memoryBytes(value: string): number | undefined {
  try {
    const bytes = parseQuantity(value);
    return Number.isFinite(bytes) && bytes > 0 ? Math.floor(bytes) : undefined;
  } catch {
    return undefined;
  }
}

const required = () => z.string({ error: "is required" });

const flagsSchema = z.object({
  node: required().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS-1123 subdomain"),
  podCIDR: required().regex(CIDR, "must be an IPv4 CIDR such as 10.244.1.0/24"),
  kubeconfig: required().min(1),
  multusKubeconfig: z.string().min(1).optional(),
  stateDir: required().min(1),
  loopDevices: z.string().min(1).optional(),
  caCert: required().min(1),
  caKey: required().min(1),
  nodeIP: z.string().regex(IPV4, "must be an IPv4 address").optional(),
  kubeletPort: z.coerce.number().int().min(0).max(65535).default(10250),
  apiServiceIP: z.string().regex(IPV4).default("10.96.0.1"),
  apiServicePort: z.coerce.number().int().min(1).max(65535).default(443),
  clusterDNS: z
    .string()
    .default("")
    .transform((list) => list.split(",").filter((ip) => ip !== ""))
    .pipe(z.array(z.string().regex(IPV4, "must be a comma-separated list of IPv4 addresses"))),
  clusterDomain: z.string().default(""),
  resolvConf: z.string().default("/etc/resolv.conf"),
  cpus: z.coerce.number().int("must be a whole number of CPUs").min(1).default(DEFAULT_NODE_SIZE.cpus),
  memory: z
    .string()
    .default(DEFAULT_NODE_SIZE.memory)
    .transform((value, ctx) => {
      const bytes = memoryBytes(value);
      if (bytes === undefined) ctx.addIssue({ code: "custom", message: "must be a quantity such as 16Gi" });
      return bytes ?? 0;
    }),
  maxPods: z.coerce.number().int().min(1).default(DEFAULT_NODE_SIZE.maxPods),
  componentImages: z
    .enum(["built", "checkout"], { error: 'must be "built" or "checkout"' })
    .default("checkout"),
});

export type AgentFlags = z.infer<typeof flagsSchema> & { nodeIP: string };

/** The first usable address of an IPv4 CIDR (network address + 1). */
export function firstAddress(cidr: string): string {
  const match = CIDR.exec(cidr);
  if (!match?.[1] || !match[2]) throw new Error(`not an IPv4 CIDR: ${cidr}`);
  const octets = match[1].split(".").map(Number);
  const value = octets.reduce((acc, o) => acc * 256 + o, 0);
  const mask = 2 ** 32 - 2 ** (32 - Number(match[2]));
  const first = (value & mask) >>> 0;
  const next = first + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(next / 2 ** shift) % 256).join(".");
}

export function parseFlags(argv: string[]): AgentFlags {
  const { values } = parseArgs({
    args: argv,
    options: {
      node: { type: "string" },
      "pod-cidr": { type: "string" },
      kubeconfig: { type: "string" },
      "multus-kubeconfig": { type: "string" },
      "state-dir": { type: "string" },
      "loop-devices": { type: "string" },
      "ca-cert": { type: "string" },
      "ca-key": { type: "string" },
      "node-ip": { type: "string" },
      "kubelet-port": { type: "string" },
      "api-service-ip": { type: "string" },
      "api-service-port": { type: "string" },
      "cluster-dns": { type: "string" },
      "cluster-domain": { type: "string" },
      "resolv-conf": { type: "string" },
      cpus: { type: "string" },
      memory: { type: "string" },
      "max-pods": { type: "string" },
      "component-images": { type: "string" },
    },
    strict: true,
  });
  const parsed = flagsSchema.safeParse({
    node: values.node,
    podCIDR: values["pod-cidr"],
    kubeconfig: values.kubeconfig,
    multusKubeconfig: values["multus-kubeconfig"],
    stateDir: values["state-dir"],
    loopDevices: values["loop-devices"],
    caCert: values["ca-cert"],
    caKey: values["ca-key"],
    nodeIP: values["node-ip"],
    kubeletPort: values["kubelet-port"],
    apiServiceIP: values["api-service-ip"],
    apiServicePort: values["api-service-port"],
    clusterDNS: values["cluster-dns"],
    clusterDomain: values["cluster-domain"],
    resolvConf: values["resolv-conf"],
    cpus: values.cpus,
    memory: values.memory,
    maxPods: values["max-pods"],
    componentImages: values["component-images"],
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `--${flagName(String(i.path[0]))}: ${i.message}`);
    throw new Error(`invalid flags:\n  ${problems.join("\n  ")}`);
  }
  return { ...parsed.data, nodeIP: parsed.data.nodeIP ?? firstAddress(parsed.data.podCIDR) };
}

function flagName(key: string): string {
  return key
    .replace(/CIDR|IP|DNS/g, (m) => `-${m.toLowerCase()}`)
    .replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
