// virt-api's reads and writes against the apiserver: the VM/VMI calls of the lifecycle subresources,
// SubjectAccessReviews, the front proxy's settings, the apiserver's version for healthz, and what the
// console needs to reach virt-handler (its pods, the KubeVirt CA, virt-api's client certificate).
import { readFile } from "node:fs/promises";
import {
  VirtualMachineInstanceMigrationSchema,
  VirtualMachineInstanceSchema,
  VirtualMachineSchema,
  type VirtualMachineInstanceMigration,
  type VirtualMachineInstancePreset,
} from "../api/generated/v1.js";
import { isNotFound } from "../controller/api-error.js";
import { ResourceClient } from "../controller/client.js";
import { coreGVR, type GroupVersionResource } from "../controller/gvr.js";
import type { Transport } from "../controller/rest.js";
import { caBundleOf, KUBEVIRT_CA_CONFIGMAP } from "../util/tls/tls.js";
import type { AccessReviewer } from "./access-control.js";
import type { ConsoleBackend } from "./rest/console.js";
import { VIRT_HANDLER_POD_SELECTOR } from "./rest/dialers.js";
import {
  AUTHENTICATION_CONFIGMAP,
  requestHeaderConfigFrom,
  type RequestHeaderConfig,
} from "./rest/authorizer.js";
import type { LifecycleClient } from "./rest/subresource-app.js";
import type { MigrateClient } from "./rest/migrate.js";
import type { MigrationAdmissionClient } from "./webhooks/validating-webhook/admitters/migration-create-admitter.js";
import type { PodEvictionClient } from "./webhooks/validating-webhook/admitters/pod-eviction-admitter.js";
import type { PresetLister } from "./webhooks/mutating-webhook/mutators/preset.js";

const kubevirtGVR = (resource: string, kind: string): GroupVersionResource => ({
  group: "kubevirt.io",
  version: "v1",
  resource,
  namespaced: true,
  kind,
});

const subjectAccessReviewGVR: GroupVersionResource = {
  group: "authorization.k8s.io",
  version: "v1",
  resource: "subjectaccessreviews",
  namespaced: false,
  kind: "SubjectAccessReview",
};

async function orUndefined<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function lifecycleClient(transport: Transport): LifecycleClient {
  const vms = new ResourceClient(transport, kubevirtGVR("virtualmachines", "VirtualMachine"));
  const vmis = new ResourceClient(
    transport,
    kubevirtGVR("virtualmachineinstances", "VirtualMachineInstance"),
  );
  const pods = new ResourceClient(transport, coreGVR.pods);
  return {
    getVM: async (namespace, name) => {
      const raw = await orUndefined(vms.get(namespace, name));
      return raw === undefined ? undefined : VirtualMachineSchema.parse(raw);
    },
    getVMI: async (namespace, name) => {
      const raw = await orUndefined(vmis.get(namespace, name));
      return raw === undefined ? undefined : VirtualMachineInstanceSchema.parse(raw);
    },
    patchVM: async (namespace, name, patch, dryRun) => {
      await vms.patch(namespace, name, "json", patch, { dryRun });
    },
    patchVMStatus: async (namespace, name, patch, dryRun) => {
      await vms.patchStatus(namespace, name, "json", patch, { dryRun });
    },
    patchVMI: async (namespace, name, patch, dryRun) => {
      await vmis.patch(namespace, name, "json", patch, { dryRun });
    },
    listPodNames: async (namespace, labelSelector, fieldSelector) => {
      const list = await pods.list(namespace, { labelSelector, fieldSelector });
      return list.items.map((pod) => (pod as { metadata?: { name?: string } }).metadata?.name ?? "");
    },
    deletePod: async (namespace, name, gracePeriodSeconds, dryRun) => {
      await orUndefined(
        pods.delete(namespace, name, { gracePeriodSeconds, ...(dryRun ? { dryRun: ["All"] } : {}) }),
      );
    },
  };
}

/**
 * The migrations' calls: the create admitter's reads (the VMI, the VMI's migrations) and the migrate
 * subresource's VM and VMI reads and its create.
 */
export function migrationClient(transport: Transport): MigrationAdmissionClient & MigrateClient {
  const lifecycle = lifecycleClient(transport);
  const migrations = new ResourceClient<VirtualMachineInstanceMigration>(
    transport,
    kubevirtGVR("virtualmachineinstancemigrations", "VirtualMachineInstanceMigration"),
  );
  return {
    getVM: (namespace, name) => lifecycle.getVM(namespace, name),
    getVMI: (namespace, name) => lifecycle.getVMI(namespace, name),
    listMigrations: async (namespace, labelSelector) => {
      const list = await migrations.listAll(namespace, { labelSelector });
      return list.items.map((item) => VirtualMachineInstanceMigrationSchema.parse(item));
    },
    createMigration: async (namespace, migration, dryRun) => {
      await migrations.create({ ...migration, metadata: { ...migration.metadata, namespace } }, { dryRun });
    },
  };
}

/** The eviction interceptor's calls: errors (not found included) are thrown for it to judge. */
export function podEvictionClient(transport: Transport): PodEvictionClient {
  const pods = new ResourceClient(transport, coreGVR.pods);
  const vmis = new ResourceClient(
    transport,
    kubevirtGVR("virtualmachineinstances", "VirtualMachineInstance"),
  );
  return {
    getPod: (namespace, name) => pods.get(namespace, name),
    getVMI: (namespace, name) => vmis.get(namespace, name),
    patchVMI: async (namespace, name, patch, dryRun) => {
      await vmis.patch(namespace, name, "json", patch, { dryRun });
    },
  };
}

/** The VMI mutator's read of a namespace's presets (upstream lists them from an informer). */
export function presetLister(transport: Transport): PresetLister {
  const presets = new ResourceClient<VirtualMachineInstancePreset & { metadata?: { name?: string } }>(
    transport,
    kubevirtGVR("virtualmachineinstancepresets", "VirtualMachineInstancePreset"),
  );
  return async (namespace) => (await presets.listAll(namespace)).items;
}

export function subjectAccessReviewer(transport: Transport): AccessReviewer {
  return {
    review: async (review) => {
      const answer = (await transport.request({
        method: "POST",
        path: `/apis/${subjectAccessReviewGVR.group}/${subjectAccessReviewGVR.version}/${subjectAccessReviewGVR.resource}`,
        body: review,
      })) as { status?: { allowed?: boolean; reason?: string } } | undefined;
      return { allowed: answer?.status?.allowed === true, reason: answer?.status?.reason ?? "" };
    },
  };
}

export async function loadRequestHeaderConfig(transport: Transport): Promise<RequestHeaderConfig> {
  const configMaps = new ResourceClient(transport, coreGVR.configMaps);
  const configMap = await configMaps.get(AUTHENTICATION_CONFIGMAP.namespace, AUTHENTICATION_CONFIGMAP.name);
  const loaded = requestHeaderConfigFrom((configMap as { data?: unknown }).data);
  if (!loaded.ok) throw new Error(loaded.message);
  return loaded.value;
}

export const apiserverVersion = (transport: Transport) => () =>
  transport.request({ method: "GET", path: "/version" });

export interface ConsoleBackendOptions {
  /** virt-api's namespace: where the virt-handler pods and the CA ConfigMap are. */
  namespace: string;
  caConfigMapName?: string;
  /** virt-api's client certificate towards virt-handler (Secret kubevirt-virt-handler-certs). */
  handlerCertFile: string;
  handlerKeyFile: string;
}

/** Everything is read per connection: consoles are rare, and a rotated CA or certificate is used at once. */
export function consoleBackend(transport: Transport, options: ConsoleBackendOptions): ConsoleBackend {
  const vmis = lifecycleClient(transport);
  const pods = new ResourceClient(transport, coreGVR.pods);
  const configMaps = new ResourceClient(transport, coreGVR.configMaps);
  const caName = options.caConfigMapName ?? KUBEVIRT_CA_CONFIGMAP;
  return {
    getVMI: (namespace, name) => vmis.getVMI(namespace, name),
    handlerPods: async (nodeName) => {
      const list = await pods.list(options.namespace, {
        labelSelector: VIRT_HANDLER_POD_SELECTOR,
        fieldSelector: `spec.nodeName=${nodeName}`,
      });
      return list.items.map((pod) => ({ podIP: (pod as { status?: { podIP?: string } }).status?.podIP }));
    },
    handlerTLS: async () => {
      const configMap = await orUndefined(configMaps.get(options.namespace, caName));
      const bundle = caBundleOf(configMap as { data?: unknown } | undefined, options.namespace, caName);
      if (!bundle.ok) throw new Error(bundle.message);
      const [certPem, keyPem] = await Promise.all([
        readFile(options.handlerCertFile, "utf8"),
        readFile(options.handlerKeyFile, "utf8"),
      ]);
      return { caBundle: bundle.pem, certPem, keyPem };
    },
  };
}
