import type { DeviceAllocation } from "./device-manager.js";
import { expandCommand, resolveEnv, type ObjectSource } from "./env.js";
import type { NodeAllocatable, PodRuntimeFacts } from "./downward-api.js";
import type { Container, Pod } from "./k8s-types.js";
import type { ContainerRequest, ImageRef, MountPropagation, PodRef } from "./pod-runtime.js";

// Everything the runtime needs to start one container instance: the resolved environment (plus what
// device plugins added), $(VAR)-expanded command and args, volume mounts, and the devices and host
// mounts of the container's device allocations.

export interface ContainerRequestContext {
  pod: Pod;
  container: Container;
  attempt: number;
  image: ImageRef;
  runtimeFacts: PodRuntimeFacts;
  allocatable: NodeAllocatable;
  apiService: { host: string; port: number };
  objects: ObjectSource;
  allocations: readonly DeviceAllocation[];
}

const PROPAGATIONS: ReadonlySet<string> = new Set<MountPropagation>([
  "None",
  "HostToContainer",
  "Bidirectional",
]);

function isPropagation(value: string | undefined): value is MountPropagation {
  return value !== undefined && PROPAGATIONS.has(value);
}

export function podRef(pod: Pod): PodRef {
  return { uid: pod.metadata.uid, namespace: pod.metadata.namespace ?? "default", name: pod.metadata.name };
}

/** Throws ContainerConfigError (from env resolution) for what kubelet reports as CreateContainerConfigError. */
export async function buildContainerRequest(ctx: ContainerRequestContext): Promise<ContainerRequest> {
  const { pod, container } = ctx;
  const env = await resolveEnv({
    pod,
    container,
    runtime: ctx.runtimeFacts,
    allocatable: ctx.allocatable,
    apiService: ctx.apiService,
    objects: ctx.objects,
  });
  for (const allocation of ctx.allocations) {
    for (const [name, value] of Object.entries(allocation.response.envs)) env.set(name, value);
  }
  const security = container.securityContext;
  const podSecurity = pod.spec.securityContext;
  const runAsUser = security?.runAsUser ?? podSecurity?.runAsUser;
  const runAsGroup = security?.runAsGroup ?? podSecurity?.runAsGroup;
  return {
    pod: podRef(pod),
    name: container.name,
    attempt: ctx.attempt,
    image: ctx.image,
    ...expandCommand(container, env),
    ...(container.workingDir ? { workingDir: container.workingDir } : {}),
    env: Object.fromEntries(env),
    mounts: (container.volumeMounts ?? []).map((m) => ({
      volume: m.name,
      mountPath: m.mountPath,
      readOnly: m.readOnly ?? false,
      ...(m.subPath ? { subPath: m.subPath } : {}),
      ...(isPropagation(m.mountPropagation) ? { propagation: m.mountPropagation } : {}),
    })),
    volumeDevices: (container.volumeDevices ?? []).map((d) => ({ volume: d.name, devicePath: d.devicePath })),
    hostMounts: ctx.allocations.flatMap((a) =>
      a.response.mounts.map((m) => ({
        hostPath: m.host_path,
        containerPath: m.container_path,
        readOnly: m.read_only,
      })),
    ),
    devices: ctx.allocations.flatMap((a) =>
      a.response.devices.map((d) => ({
        hostPath: d.host_path,
        containerPath: d.container_path,
        permissions: d.permissions || "rwm",
      })),
    ),
    privileged: security?.privileged ?? false,
    ...(runAsUser !== undefined ? { runAsUser } : {}),
    ...(runAsGroup !== undefined ? { runAsGroup } : {}),
    ...(security?.capabilities
      ? { capabilities: { add: security.capabilities.add ?? [], drop: security.capabilities.drop ?? [] } }
      : {}),
    hostNetwork: pod.spec.hostNetwork ?? false,
    hostPID: pod.spec.hostPID ?? false,
  };
}

/** The extended resources (device plugin resources) a container asks for, with counts. */
export function extendedResourceRequests(
  container: Container,
  isExtended: (name: string) => boolean,
): { resource: string; count: number }[] {
  const amounts = { ...(container.resources?.requests ?? {}), ...(container.resources?.limits ?? {}) };
  return Object.entries(amounts)
    .filter(([name]) => isExtended(name))
    .map(([resource, value]) => ({ resource, count: Number(value) }))
    .filter((r) => r.count > 0);
}
