// The Node object as kubelet registers and reports it, computed from plain facts about the host so the
// mapping is testable without a host. Quantities use the units kubelet uses (memory and storage in Ki).
// CPU, memory and pods are the node's declared size: the simulated nodes share one machine, so measuring
// it would report the whole machine on every node.

export const KUBELET_PORT = 10250;
/** kubelet's default hard eviction thresholds, subtracted from capacity to give allocatable. */
const EVICTION_MEMORY_BYTES = 100 * 1024 * 1024;
const EVICTION_NODEFS_FRACTION = 0.1;

/** What the cluster declares a node to hold (kubelet measures cpu and memory; here they are given). */
export interface NodeSize {
  cpus: number;
  memoryBytes: number;
  /** kubelet's --max-pods */
  maxPods: number;
}

export interface HostFacts {
  size: NodeSize;
  /** Size of the filesystem holding the node's state (kubelet's nodefs). */
  diskBytes: number;
  machineID: string;
  bootID: string;
  systemUUID: string;
  kernelVersion: string;
  osImage: string;
  /** Node.js' process.arch; mapped to GOARCH names. */
  arch: string;
}

export interface NodeIdentity {
  name: string;
  internalIP: string;
  podCIDR: string;
  kubeletVersion: string;
  runtimeVersion: string;
}

export interface NodeCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
}

const GOARCH: Record<string, string> = {
  x64: "amd64",
  arm64: "arm64",
  arm: "arm",
  ppc64: "ppc64le",
  s390x: "s390x",
};

export function goArch(nodeArch: string): string {
  return GOARCH[nodeArch] ?? nodeArch;
}

const kibi = (bytes: number): string => `${Math.floor(bytes / 1024)}Ki`;

export function nodeLabels(identity: NodeIdentity, host: HostFacts): Record<string, string> {
  const arch = goArch(host.arch);
  return {
    "kubernetes.io/hostname": identity.name,
    "kubernetes.io/os": "linux",
    "kubernetes.io/arch": arch,
    "beta.kubernetes.io/os": "linux",
    "beta.kubernetes.io/arch": arch,
  };
}

export function nodeCapacity(host: HostFacts): Record<string, string> {
  return {
    cpu: String(host.size.cpus),
    memory: kibi(host.size.memoryBytes),
    pods: String(host.size.maxPods),
    "ephemeral-storage": kibi(host.diskBytes),
    "hugepages-1Gi": "0",
    "hugepages-2Mi": "0",
  };
}

export function nodeAllocatable(host: HostFacts): Record<string, string> {
  return {
    ...nodeCapacity(host),
    memory: kibi(Math.max(0, host.size.memoryBytes - EVICTION_MEMORY_BYTES)),
    "ephemeral-storage": String(Math.floor(host.diskBytes * (1 - EVICTION_NODEFS_FRACTION))),
  };
}

interface ConditionFacts {
  type: string;
  status: "True" | "False";
  reason: string;
  message: string;
}

// The four conditions kubelet reports, in its words. The agent has no pressure signals, so the pressures
// are always False; Ready is True while the agent is running and able to report.
const HEALTHY_CONDITIONS: ConditionFacts[] = [
  {
    type: "MemoryPressure",
    status: "False",
    reason: "KubeletHasSufficientMemory",
    message: "kubelet has sufficient memory available",
  },
  {
    type: "DiskPressure",
    status: "False",
    reason: "KubeletHasNoDiskPressure",
    message: "kubelet has no disk pressure",
  },
  {
    type: "PIDPressure",
    status: "False",
    reason: "KubeletHasSufficientPID",
    message: "kubelet has sufficient PID available",
  },
  { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" },
];

/** Conditions with fresh heartbeats, keeping the transition time of any condition whose status is unchanged. */
export function nodeConditions(previous: readonly Partial<NodeCondition>[], now: string): NodeCondition[] {
  return HEALTHY_CONDITIONS.map((c) => {
    const before = previous.find((p) => p.type === c.type);
    const unchanged = before?.status === c.status && before.lastTransitionTime;
    return {
      ...c,
      lastHeartbeatTime: now,
      lastTransitionTime: unchanged ? (before.lastTransitionTime as string) : now,
    };
  });
}

export interface ExtendedResources {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
}

export function nodeStatus(
  identity: NodeIdentity,
  host: HostFacts,
  conditions: NodeCondition[],
  extended: ExtendedResources,
): Record<string, unknown> {
  return {
    capacity: { ...nodeCapacity(host), ...extended.capacity },
    allocatable: { ...nodeAllocatable(host), ...extended.allocatable },
    conditions,
    addresses: [
      { type: "InternalIP", address: identity.internalIP },
      { type: "Hostname", address: identity.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: KUBELET_PORT } },
    nodeInfo: {
      machineID: host.machineID,
      systemUUID: host.systemUUID,
      bootID: host.bootID,
      kernelVersion: host.kernelVersion,
      osImage: host.osImage,
      containerRuntimeVersion: identity.runtimeVersion,
      kubeletVersion: identity.kubeletVersion,
      operatingSystem: "linux",
      architecture: goArch(host.arch),
    },
  };
}

/** The object POSTed on first registration (status is written separately through the status subresource). */
export function newNodeObject(identity: NodeIdentity, host: HostFacts): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: identity.name,
      labels: nodeLabels(identity, host),
      annotations: { "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
    },
    spec: { podCIDR: identity.podCIDR, podCIDRs: [identity.podCIDR] },
  };
}
