// The instance type series of kubevirt/common-instancetypes at the release virt-operator v1.8.4 deploys
// (hack/common-instancetypes/default.sh pins v1.6.0): per series its display name, description, class,
// icon, sizes and the spec every size shares. The per-size labels (cpu, memory, size and the feature
// flags) follow from the spec, as the upstream kustomize components add them.
import type { VirtualMachineInstancetypeSpec } from "../../../../../api/generated/v1beta1.js";

export interface InstancetypeSize {
  /** The part after the series' "." (e.g. "2xlarge"). */
  size: string;
  cpu: number;
  memory: string;
}

export interface InstancetypeSeries {
  /** The name prefix, e.g. "u1". */
  name: string;
  displayName: string;
  description: string;
  className: string;
  icon: string;
  sizes: readonly InstancetypeSize[];
  /** Hugepage sizes of the series; a non-default one names its own variant of every size ("large1gi"). */
  hugepages?: { default: string; variants?: readonly string[] };
  spec(size: InstancetypeSize, pageSize: string | undefined): VirtualMachineInstancetypeSpec;
}

const size = (name: string, cpu: number, memory: string): InstancetypeSize => ({ size: name, cpu, memory });

// Upstream's u1 ladder; d1 shares it, o1 lacks 2xmedium.
const GENERAL_SIZES = [
  size("nano", 1, "512Mi"),
  size("micro", 1, "1Gi"),
  size("small", 1, "2Gi"),
  size("medium", 1, "4Gi"),
  size("2xmedium", 2, "4Gi"),
  size("large", 2, "8Gi"),
  size("xlarge", 4, "16Gi"),
  size("2xlarge", 8, "32Gi"),
  size("4xlarge", 16, "64Gi"),
  size("8xlarge", 32, "128Gi"),
];

/** CRI-O annotations that keep the host from balancing load and IRQs onto the dedicated cores. */
const CRIO_ISOLATION = {
  "cpu-load-balancing.crio.io": "disable",
  "cpu-quota.crio.io": "disable",
  "irq-load-balancing.crio.io": "disable",
};

const hugepagesOf = (pageSize: string | undefined) => (pageSize ? { hugepages: { pageSize } } : {});

export const INSTANCETYPE_SERIES: readonly InstancetypeSeries[] = [
  {
    name: "cx1",
    displayName: "Compute Exclusive",
    description:
      'The CX Series provides exclusive compute resources for compute\nintensive applications.\n\n*CX* is the abbreviation of "Compute Exclusive".\n\nThe exclusive resources are given to the compute threads of the\nVM. In order to ensure this, some additional cores (depending\non the number of disks and NICs) will be requested to offload\nthe IO threading from cores dedicated to the workload.\nIn addition, in this series, the NUMA topology of the used\ncores is provided to the VM.\n\nThe amount of spec.cpu.maxSockets is set to the same as\nguest cpus. This avoids KubeVirt\'s default behavior of\nproviding extra CPUs for hotplugging, which can exceed the\namount of available CPUs on a node and cause the VM to fail.\n\nRequirements for CX series instance types:\n- CPU manager has to be enabled.\n- Huge pages have to be available on the nodes.',
    className: "compute.exclusive",
    icon: "pficon-registry",
    sizes: [
      size("medium", 1, "2Gi"),
      size("large", 2, "4Gi"),
      size("xlarge", 4, "8Gi"),
      size("2xlarge", 8, "16Gi"),
      size("4xlarge", 16, "32Gi"),
      size("8xlarge", 32, "64Gi"),
    ],
    hugepages: { default: "2Mi", variants: ["1Gi"] },
    spec: (s, pageSize) => ({
      cpu: {
        dedicatedCPUPlacement: true,
        guest: s.cpu,
        isolateEmulatorThread: true,
        maxSockets: s.cpu,
        numa: { guestMappingPassthrough: {} },
      },
      ioThreadsPolicy: "auto",
      memory: { guest: s.memory, ...hugepagesOf(pageSize) },
    }),
  },
  {
    name: "d1",
    displayName: "Dedicated vCPU",
    description:
      'The D Series is designed for consistent and predictable performance,\nproviding resources for general purpose applications.\n\n*D* is the abbreviation for "Dedicated", reflecting the use of\ndedicated CPU placement for workloads.\n\nVMs of this instance type are assigned exclusive physical CPU cores,\navoiding CPU sharing and time-slice contention with other VMs.',
    className: "dedicated.vcpu",
    icon: "pficon-server-group",
    sizes: GENERAL_SIZES,
    spec: (s) => ({
      cpu: { dedicatedCPUPlacement: true, guest: s.cpu, isolateEmulatorThread: true },
      ioThreadsPolicy: "auto",
      memory: { guest: s.memory },
    }),
  },
  {
    name: "m1",
    displayName: "Memory Intensive",
    description:
      'The M Series provides resources for memory intensive\napplications.\n\n*M* is the abbreviation of "Memory".',
    className: "memory.intensive",
    icon: "fa-memory",
    sizes: [
      size("large", 2, "16Gi"),
      size("xlarge", 4, "32Gi"),
      size("2xlarge", 8, "64Gi"),
      size("4xlarge", 16, "128Gi"),
      size("8xlarge", 32, "256Gi"),
    ],
    hugepages: { default: "2Mi", variants: ["1Gi"] },
    spec: (s, pageSize) => ({ cpu: { guest: s.cpu }, memory: { guest: s.memory, ...hugepagesOf(pageSize) } }),
  },
  {
    name: "n1",
    displayName: "Network",
    description:
      'The N Series provides resources for network intensive DPDK\napplications, like VNFs.\n\n*N* is the abbreviation for "Network".\n\nThis series of instancetypes requires nodes capable\nof running DPDK workloads and being marked with the respective\nnode-role.kubevirt.io/worker-dpdk label as such.',
    className: "network",
    icon: "pficon-network",
    sizes: [
      size("medium", 4, "4Gi"),
      size("large", 4, "8Gi"),
      size("xlarge", 8, "16Gi"),
      size("2xlarge", 16, "32Gi"),
      size("4xlarge", 32, "64Gi"),
      size("8xlarge", 64, "128Gi"),
    ],
    hugepages: { default: "1Gi" },
    spec: (s, pageSize) => ({
      annotations: { ...CRIO_ISOLATION },
      cpu: { dedicatedCPUPlacement: true, guest: s.cpu, isolateEmulatorThread: true },
      memory: { guest: s.memory, ...hugepagesOf(pageSize) },
    }),
  },
  {
    name: "o1",
    displayName: "Overcommitted",
    description:
      'The O Series is based on the U Series, with the only difference\nbeing that memory is overcommitted.\n\n*O* is the abbreviation for "Overcommitted".',
    className: "overcommitted",
    icon: "pficon-virtual-machine",
    sizes: GENERAL_SIZES.filter((s) => s.size !== "2xmedium"),
    spec: (s) => ({ cpu: { guest: s.cpu }, memory: { guest: s.memory, overcommitPercent: 50 } }),
  },
  {
    name: "rt1",
    displayName: "Realtime",
    description:
      'The RT Series provides resources for realtime applications, like Oslat.\n\n*RT* is the abbreviation for "realtime".\n\nThis series of instance types requires nodes capable of running\nrealtime applications.',
    className: "realtime",
    icon: "pficon-server-group",
    sizes: GENERAL_SIZES.filter((s) => !["nano", "2xmedium"].includes(s.size)),
    hugepages: { default: "1Gi" },
    spec: (s, pageSize) => ({
      annotations: { ...CRIO_ISOLATION },
      cpu: {
        dedicatedCPUPlacement: true,
        guest: s.cpu,
        isolateEmulatorThread: true,
        numa: { guestMappingPassthrough: {} },
        realtime: {},
      },
      memory: { guest: s.memory, ...hugepagesOf(pageSize) },
    }),
  },
  {
    name: "u1",
    displayName: "General Purpose",
    description:
      'The U Series is quite neutral and provides resources for\ngeneral purpose applications.\n\n*U* is the abbreviation for "Universal", hinting at the universal\nattitude towards workloads.\n\nVMs of instance types will share physical CPU cores on a\ntime-slice basis with other VMs.',
    className: "general.purpose",
    icon: "pficon-server-group",
    sizes: GENERAL_SIZES,
    spec: (s) => ({ cpu: { guest: s.cpu }, memory: { guest: s.memory } }),
  },
];
