// virt-api's webhook table: upstream's paths, the resource each one admits, and the mutator or
// admitter behind it. Paths are shared with the operator, which registers them.
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import {
  MIGRATION_CREATE_VALIDATE_PATH,
  MIGRATION_MUTATE_PATH,
  MIGRATION_POLICY_CREATE_VALIDATE_PATH,
  MIGRATION_UPDATE_VALIDATE_PATH,
  POD_EVICTION_VALIDATE_PATH,
  STATUS_VALIDATE_PATH,
  VMI_CREATE_VALIDATE_PATH,
  VMI_MUTATE_PATH,
  VMI_UPDATE_VALIDATE_PATH,
  VMIPRESET_VALIDATE_PATH,
  VMIRS_VALIDATE_PATH,
  VMPOOL_VALIDATE_PATH,
  VM_CLUSTER_INSTANCETYPE_VALIDATE_PATH,
  VM_CLUSTER_PREFERENCE_VALIDATE_PATH,
  VM_INSTANCETYPE_VALIDATE_PATH,
  VM_PREFERENCE_VALIDATE_PATH,
  VM_MUTATE_PATH,
  VM_VALIDATE_PATH,
} from "../../virt-operator/resource/generate/components/names.js";
import {
  mutateVirtualMachine,
  mutateVirtualMachineWithPreference,
} from "./mutating-webhook/mutators/vm-mutator.js";
import { mutateVirtualMachineInstance } from "./mutating-webhook/mutators/vmi-mutator.js";
import { mutateMigrationCreate } from "./mutating-webhook/mutators/migration-create-mutator.js";
import {
  admitMigrationCreate,
  type MigrationAdmissionClient,
} from "./validating-webhook/admitters/migration-create-admitter.js";
import { admitMigrationUpdate } from "./validating-webhook/admitters/migration-update-admitter.js";
import { admitMigrationPolicy } from "./validating-webhook/admitters/migration-policy-admitter.js";
import type { PresetLister } from "./mutating-webhook/mutators/preset.js";
import { errorResponse } from "./mutating-webhook/mutators/admission.js";
import {
  toValidationResponse,
  type ValidationContext,
  type ValidationRequest,
  type Verdict,
} from "./validating-webhook/admitters/admission.js";
import {
  admitPodEviction,
  type PodEvictionClient,
} from "./validating-webhook/admitters/pod-eviction-admitter.js";
import {
  admitStatusWithVolumeRequests,
  type VMIReader,
} from "./validating-webhook/admitters/status-admitter.js";
import { admitReplicaSet } from "./validating-webhook/admitters/vmirs-admitter.js";
import { admitVMIPreset } from "./validating-webhook/admitters/vmi-preset-admitter.js";
import { admitVirtualMachinePool } from "./validating-webhook/admitters/vmpool-admitter.js";
import { admitVMICreate } from "./validating-webhook/admitters/vmi-create-admitter.js";
import { admitVMIUpdate } from "./validating-webhook/admitters/vmi-update-admitter.js";
import { admitClusterInstancetype, admitInstancetype } from "../../instancetype/webhooks/admitter.js";
import { admitClusterPreference, admitPreference } from "../../instancetype/preference/webhooks/admitter.js";
import type { InstancetypeVMAdmitter } from "../../instancetype/webhooks/vm/admitter.js";
import {
  admitVirtualMachine,
  admitVirtualMachineWithInstancetypes,
} from "./validating-webhook/admitters/vms-admitter.js";
import { denied, type AdmissionDecision, type AdmissionRequest } from "./admission-review.js";
import {
  VIRT_API_MUTATING_WEBHOOKS,
  VIRT_API_VALIDATING_WEBHOOKS,
} from "../../virt-operator/resource/generate/components/webhooks.js";

export interface WebhookContext {
  /** The configuration in force now (it follows the KubeVirt CR). */
  clusterConfig: () => ClusterConfig;
  kubeVirtServiceAccounts: ReadonlySet<string>;
  /** The Pod and VMI reads and the VMI patch the eviction interceptor makes. */
  podEvictionClient?: PodEvictionClient;
  /** Applies a VM's instance type and preference before it is validated; without it none are looked up. */
  instancetypes?: InstancetypeVMAdmitter;
  /** Reads a namespace's VirtualMachineInstancePresets for a new VMI; without it none are applied. */
  presets?: PresetLister;
  /** Where the mutators report what they chose not to apply. */
  warn?: (message: string) => void;
  /** Reads a ready VM's VMI to check its volume requests against; without it none is read. */
  readVMI?: VMIReader;
  /** The migration create admitter's reads (the VMI, the VMI's migrations). */
  migrationClient?: MigrationAdmissionClient;
}

export interface WebhookRoute {
  path: string;
  group: string;
  /** What the operator registers the path for; a review of anything else is denied. */
  resources: readonly string[];
  admit: (
    request: AdmissionRequest,
    context: WebhookContext,
  ) => AdmissionDecision | Promise<AdmissionDecision>;
}

/** Upstream's KubeVirtServiceAccounts: the components whose writes the webhooks trust. */
export function kubeVirtServiceAccounts(namespace: string): ReadonlySet<string> {
  const names = [
    "kubevirt-apiserver",
    "kubevirt-controller",
    "kubevirt-handler",
    "kubevirt-synchronization-controller",
  ];
  return new Set(names.map((name) => `system:serviceaccount:${namespace}:${name}`));
}

function validationRequest(request: AdmissionRequest): ValidationRequest {
  const validation: ValidationRequest = { operation: request.operation, object: request.object };
  if (request.oldObject !== undefined) validation.oldObject = request.oldObject;
  if (request.namespace !== undefined) validation.namespace = request.namespace;
  if (request.userInfo?.username !== undefined) validation.username = request.userInfo.username;
  if (request.userInfo?.extra !== undefined) validation.extra = request.userInfo.extra;
  return validation;
}

function validating(admitter: (request: ValidationRequest, context: ValidationContext) => Verdict) {
  return (request: AdmissionRequest, context: WebhookContext): AdmissionDecision =>
    toValidationResponse(
      admitter(validationRequest(request), {
        clusterConfig: context.clusterConfig(),
        kubeVirtServiceAccounts: context.kubeVirtServiceAccounts,
      }),
    );
}

/** The namespace a new VMI is created in: its own, else the request's. */
function vmiNamespace(request: AdmissionRequest): string {
  const metadata = (request.object as { metadata?: { namespace?: unknown } } | undefined)?.metadata;
  return typeof metadata?.namespace === "string" && metadata.namespace !== ""
    ? metadata.namespace
    : (request.namespace ?? "");
}

const KUBEVIRT_GROUP = "kubevirt.io";
const POOL_GROUP = "pool.kubevirt.io";
const INSTANCETYPE_GROUP = "instancetype.kubevirt.io";
const MIGRATIONS_GROUP = "migrations.kubevirt.io";

const SERVED_WEBHOOK_ROUTES: readonly WebhookRoute[] = [
  {
    path: VMI_MUTATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachineinstances"],
    admit: async (request, context) => {
      let presets;
      try {
        if (request.operation === "CREATE") presets = await context.presets?.(vmiNamespace(request));
      } catch (error) {
        // Upstream answers a failed preset read as it answers a preset conflict.
        return errorResponse(error instanceof Error ? error.message : String(error), 422);
      }
      return mutateVirtualMachineInstance(validationRequest(request), {
        clusterConfig: context.clusterConfig(),
        kubeVirtServiceAccounts: context.kubeVirtServiceAccounts,
        ...(presets ? { presets } : {}),
        ...(context.warn ? { warn: context.warn } : {}),
      });
    },
  },
  {
    path: VM_MUTATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachines"],
    admit: (request, context) => {
      const mutation = { clusterConfig: context.clusterConfig() };
      const instancetypes = context.instancetypes;
      if (instancetypes === undefined) return mutateVirtualMachine(validationRequest(request), mutation);
      return mutateVirtualMachineWithPreference(validationRequest(request), mutation, {
        preferenceOf: (vm) => instancetypes.preferenceOf(vm),
        infer: (vm) => instancetypes.infer(vm),
      });
    },
  },
  {
    path: VMI_CREATE_VALIDATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachineinstances"],
    admit: validating(admitVMICreate),
  },
  {
    path: VMI_UPDATE_VALIDATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachineinstances"],
    admit: validating(admitVMIUpdate),
  },
  {
    path: VM_VALIDATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachines"],
    admit: async (request, context) => {
      if (context.instancetypes === undefined) return validating(admitVirtualMachine)(request, context);
      const validation = {
        clusterConfig: context.clusterConfig(),
        kubeVirtServiceAccounts: context.kubeVirtServiceAccounts,
      };
      const verdict = await admitVirtualMachineWithInstancetypes(
        validationRequest(request),
        validation,
        context.instancetypes,
      );
      return toValidationResponse(verdict);
    },
  },
  {
    path: VM_INSTANCETYPE_VALIDATE_PATH,
    group: INSTANCETYPE_GROUP,
    resources: ["virtualmachineinstancetypes"],
    admit: validating(admitInstancetype),
  },
  {
    path: VM_CLUSTER_INSTANCETYPE_VALIDATE_PATH,
    group: INSTANCETYPE_GROUP,
    resources: ["virtualmachineclusterinstancetypes"],
    admit: validating(admitClusterInstancetype),
  },
  {
    path: VM_PREFERENCE_VALIDATE_PATH,
    group: INSTANCETYPE_GROUP,
    resources: ["virtualmachinepreferences"],
    admit: validating(admitPreference),
  },
  {
    path: VM_CLUSTER_PREFERENCE_VALIDATE_PATH,
    group: INSTANCETYPE_GROUP,
    resources: ["virtualmachineclusterpreferences"],
    admit: validating(admitClusterPreference),
  },
  {
    path: VMIRS_VALIDATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachineinstancereplicasets"],
    admit: validating(admitReplicaSet),
  },
  {
    path: MIGRATION_POLICY_CREATE_VALIDATE_PATH,
    group: MIGRATIONS_GROUP,
    resources: ["migrationpolicies"],
    admit: validating(admitMigrationPolicy),
  },
  {
    path: VMIPRESET_VALIDATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachineinstancepresets"],
    admit: validating(admitVMIPreset),
  },
  {
    path: VMPOOL_VALIDATE_PATH,
    group: POOL_GROUP,
    resources: ["virtualmachinepools"],
    admit: validating(admitVirtualMachinePool),
  },
  {
    // virt-launcher-eviction-interceptor: registered for pods/eviction, reviewed as pods.
    path: POD_EVICTION_VALIDATE_PATH,
    group: "",
    resources: ["pods"],
    admit: (request, context) =>
      context.podEvictionClient
        ? admitPodEviction(request, {
            clusterConfig: context.clusterConfig(),
            client: context.podEvictionClient,
          })
        : denied("virt-api has no client to read the evicted Pod", 500),
  },
  {
    path: STATUS_VALIDATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachines", "virtualmachineinstancereplicasets", "virtualmachineinstancemigrations"],
    admit: async (request, context) => {
      const validation = {
        clusterConfig: context.clusterConfig(),
        kubeVirtServiceAccounts: context.kubeVirtServiceAccounts,
      };
      try {
        return toValidationResponse(
          await admitStatusWithVolumeRequests(validationRequest(request), validation, context.readVMI),
        );
      } catch (error) {
        return denied(error instanceof Error ? error.message : String(error), 500);
      }
    },
  },
];

/**
 * The VirtualMachineInstanceMigration webhooks, as upstream's: the mutator labels a new migration with its
 * VMI and adds the finalizer, the create admitter checks the VMI and the migrations already in flight, the
 * update admitter keeps the spec and the selector label.
 */
export const MIGRATION_WEBHOOK_ROUTES: readonly WebhookRoute[] = [
  {
    path: MIGRATION_MUTATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachineinstancemigrations"],
    admit: (request) => mutateMigrationCreate(validationRequest(request)),
  },
  {
    path: MIGRATION_CREATE_VALIDATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachineinstancemigrations"],
    admit: (request, context) =>
      context.migrationClient
        ? admitMigrationCreate(validationRequest(request), {
            clusterConfig: context.clusterConfig(),
            kubeVirtServiceAccounts: context.kubeVirtServiceAccounts,
            client: context.migrationClient,
          })
        : denied("virt-api has no client to read the migrated VMI", 500),
  },
  {
    path: MIGRATION_UPDATE_VALIDATE_PATH,
    group: KUBEVIRT_GROUP,
    resources: ["virtualmachineinstancemigrations"],
    admit: (request) => admitMigrationUpdate(validationRequest(request)),
  },
];

/**
 * Webhooks the operator registers (upstream's full set) whose kinds kubevirt-ts does not serve yet.
 * The apiserver calls them fail-closed; each answers with a denial that says so, instead of a 404.
 */
function notYetServedRoutes(served: readonly WebhookRoute[]): WebhookRoute[] {
  return [...VIRT_API_VALIDATING_WEBHOOKS, ...VIRT_API_MUTATING_WEBHOOKS]
    .filter((row) => !served.some((route) => route.path === row.path))
    .filter((row, index, rows) => rows.findIndex((other) => other.path === row.path) === index)
    .map((row) => {
      const resources = [...new Set(row.resources.map((resource) => resource.split("/")[0] ?? resource))];
      const what = row.resources
        .map((resource) => `${resource}${row.group ? `.${row.group}` : ""}`)
        .join(", ");
      return {
        path: row.path,
        group: row.group,
        resources,
        admit: () => denied(`kubevirt-ts does not support ${what} yet (webhook ${row.name})`, 501),
      };
    });
}

export const WEBHOOK_ROUTES: readonly WebhookRoute[] = [
  ...SERVED_WEBHOOK_ROUTES,
  ...MIGRATION_WEBHOOK_ROUTES,
];
export const NOT_YET_SERVED_WEBHOOK_ROUTES: readonly WebhookRoute[] = notYetServedRoutes(WEBHOOK_ROUTES);
