// virt-api's reads and writes against the apiserver: the VM/VMI calls of the lifecycle subresources,
// SubjectAccessReviews, the front proxy's settings and the apiserver's version for healthz.
import { VirtualMachineInstanceSchema, VirtualMachineSchema } from "../api/generated/v1.js";
import { isNotFound } from "../controller/api-error.js";
import { ResourceClient } from "../controller/client.js";
import { coreGVR, type GroupVersionResource } from "../controller/gvr.js";
import type { Transport } from "../controller/rest.js";
import type { AccessReviewer } from "./access-control.js";
import {
  AUTHENTICATION_CONFIGMAP,
  requestHeaderConfigFrom,
  type RequestHeaderConfig,
} from "./rest/authorizer.js";
import type { LifecycleClient } from "./rest/subresource-app.js";

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
  };
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
