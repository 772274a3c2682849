// The common cluster instance types and preferences virt-operator deploys (upstream's
// components/instancetypes.go, which decodes the bundles of kubevirt/common-instancetypes embedded in
// data/common-instancetypes/). Here the bundles are generated from the typed tables in
// common-instancetypes/ (hack/common-instancetypes-gen writes them to data/common-instancetypes/), and
// the operator builds the same objects from those tables.
import type {
  VirtualMachineClusterInstancetype,
  VirtualMachineClusterPreference,
} from "../../../../api/generated/v1beta1.js";
import { INSTANCETYPE_SERIES, type InstancetypeSeries } from "./common-instancetypes/instancetype-series.js";
import { PREFERENCES, type PreferenceEntry } from "./common-instancetypes/preferences.js";

/** The kubevirt/common-instancetypes release (upstream's hack/common-instancetypes/default.sh). */
export const COMMON_INSTANCETYPES_VERSION = "v1.6.0";

export const INSTANCETYPE_API_VERSION = "instancetype.kubevirt.io/v1beta1";
const PREFIX = "instancetype.kubevirt.io/";
const VENDOR = "kubevirt.io";

const commonLabels = () => ({
  [`${PREFIX}vendor`]: VENDOR,
  [`${PREFIX}common-instancetypes-version`]: COMMON_INSTANCETYPES_VERSION,
});

/** One name per size and hugepage variant: "cx1.large" (2Mi) and "cx1.large1gi" (1Gi). */
function variantsOf(series: InstancetypeSeries): Array<{ suffix: string; pageSize: string | undefined }> {
  const hp = series.hugepages;
  if (!hp) return [{ suffix: "", pageSize: undefined }];
  return [
    { suffix: "", pageSize: hp.default },
    ...(hp.variants ?? []).map((p) => ({ suffix: p.toLowerCase(), pageSize: p })),
  ];
}

function instancetypesOf(series: InstancetypeSeries): VirtualMachineClusterInstancetype[] {
  return series.sizes.flatMap((s) =>
    variantsOf(series).map(({ suffix, pageSize }) => {
      const spec = series.spec(s, pageSize);
      const cpu = spec.cpu;
      const flag = (on: unknown, key: string) => (on ? { [`${PREFIX}${key}`]: "true" } : {});
      return {
        apiVersion: INSTANCETYPE_API_VERSION,
        kind: "VirtualMachineClusterInstancetype",
        metadata: {
          name: `${series.name}.${s.size}${suffix}`,
          annotations: {
            [`${PREFIX}description`]: series.description,
            [`${PREFIX}displayName`]: series.displayName,
          },
          labels: {
            [`${PREFIX}class`]: series.className,
            [`${PREFIX}cpu`]: String(s.cpu),
            ...flag(cpu.dedicatedCPUPlacement, "dedicatedCPUPlacement"),
            ...(pageSize ? { [`${PREFIX}hugepages`]: pageSize } : {}),
            [`${PREFIX}icon-pf`]: series.icon,
            ...flag(cpu.isolateEmulatorThread, "isolateEmulatorThread"),
            [`${PREFIX}memory`]: s.memory,
            ...flag(cpu.numa, "numa"),
            ...flag(cpu.realtime, "realtime"),
            [`${PREFIX}size`]: `${s.size}${suffix}`,
            [`${PREFIX}version`]: "1",
            ...commonLabels(),
          },
        },
        spec,
      };
    }),
  );
}

// Upstream's bundle carries these two URLs with literal quotes and a trailing newline (a folded YAML
// scalar in common-instancetypes' kustomization); kept as they are so the objects match upstream's.
const PREFERENCE_ANNOTATIONS = {
  "openshift.io/documentation-url": '"https://github.com/kubevirt/common-instancetypes"\n',
  "openshift.io/provider-display-name": "KubeVirt",
  "openshift.io/support-url": '"https://github.com/kubevirt/common-instancetypes/issues"\n',
};

function preferenceOf(p: PreferenceEntry): VirtualMachineClusterPreference {
  const required = p.spec.requirements;
  const osType = p.spec.annotations?.["vm.kubevirt.io/os"];
  return {
    apiVersion: INSTANCETYPE_API_VERSION,
    kind: "VirtualMachineClusterPreference",
    metadata: {
      name: p.name,
      annotations: {
        iconClass: p.icon,
        "openshift.io/display-name": p.displayName,
        ...PREFERENCE_ANNOTATIONS,
        tags: p.tags,
      },
      labels: {
        ...(p.arch ? { [`${PREFIX}arch`]: p.arch } : {}),
        ...(osType ? { [`${PREFIX}os-type`]: osType } : {}),
        ...(required?.cpu ? { [`${PREFIX}required-cpu`]: String(required.cpu.guest) } : {}),
        ...(required?.memory ? { [`${PREFIX}required-memory`]: String(required.memory.guest) } : {}),
        ...commonLabels(),
      },
    },
    spec: structuredClone(p.spec),
  };
}

// Code-unit order, as the bundle lists its objects.
const byName = (a: { metadata?: { name?: string } }, b: { metadata?: { name?: string } }) => {
  const [x, y] = [a.metadata?.name ?? "", b.metadata?.name ?? ""];
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Upstream's NewClusterInstancetypes: every size of every series, in the bundle's (name) order. */
export function newClusterInstancetypes(): VirtualMachineClusterInstancetype[] {
  return INSTANCETYPE_SERIES.flatMap(instancetypesOf).sort(byName);
}

/** Upstream's NewClusterPreferences, in the bundle's (name) order. */
export function newClusterPreferences(): VirtualMachineClusterPreference[] {
  return PREFERENCES.map(preferenceOf).sort(byName);
}
