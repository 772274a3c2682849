import { parseArgs } from "node:util";
import { z } from "zod";

// The agent's command line:
//   main.ts --node <name> --pod-cidr <cidr> --kubeconfig <path> --state-dir <dir> --ca-cert <pem> --ca-key <pem>
// The node IP defaults to the first address of the pod CIDR (the node bridge's address).

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const CIDR = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})\/(\d{1,2})$/;

const required = () => z.string({ error: "is required" });

const flagsSchema = z.object({
  node: required().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS-1123 subdomain"),
  podCIDR: required().regex(CIDR, "must be an IPv4 CIDR such as 10.244.1.0/24"),
  kubeconfig: required().min(1),
  stateDir: required().min(1),
  caCert: required().min(1),
  caKey: required().min(1),
  nodeIP: z.string().regex(IPV4, "must be an IPv4 address").optional(),
  kubeletPort: z.coerce.number().int().min(0).max(65535).default(10250),
  apiServiceIP: z.string().regex(IPV4).default("10.96.0.1"),
  apiServicePort: z.coerce.number().int().min(1).max(65535).default(443),
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
      "state-dir": { type: "string" },
      "ca-cert": { type: "string" },
      "ca-key": { type: "string" },
      "node-ip": { type: "string" },
      "kubelet-port": { type: "string" },
      "api-service-ip": { type: "string" },
      "api-service-port": { type: "string" },
    },
    strict: true,
  });
  const parsed = flagsSchema.safeParse({
    node: values.node,
    podCIDR: values["pod-cidr"],
    kubeconfig: values.kubeconfig,
    stateDir: values["state-dir"],
    caCert: values["ca-cert"],
    caKey: values["ca-key"],
    nodeIP: values["node-ip"],
    kubeletPort: values["kubelet-port"],
    apiServiceIP: values["api-service-ip"],
    apiServicePort: values["api-service-port"],
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `--${flagName(String(i.path[0]))}: ${i.message}`);
    throw new Error(`invalid flags:\n  ${problems.join("\n  ")}`);
  }
  return { ...parsed.data, nodeIP: parsed.data.nodeIP ?? firstAddress(parsed.data.podCIDR) };
}

function flagName(key: string): string {
  return key
    .replace(/CIDR|IP/g, (m) => `-${m.toLowerCase()}`)
    .replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
