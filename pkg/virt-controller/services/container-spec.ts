// Upstream's ContainerSpecRenderer (rendercontainer.go): the shape shared by the compute container and
// the helper containers KubeVirt runs from the launcher image.
import type {
  V1Capabilities,
  V1ContainerPort,
  V1EnvVar,
  V1Probe,
  V1SecurityContext,
} from "@kubernetes/client-node";
import { VirtPrivateDir } from "../../util/constants.js";
import type { Container, ResourceRequirements, VolumeMount } from "../../api/core/v1/pod.js";

export interface ContainerSpec {
  name: string;
  image: string;
  imagePullPolicy: string;
  /** 0 runs as root; anything else also gets the XDG directories a non-root libvirt needs. */
  userId: number;
  capabilities?: V1Capabilities;
  command?: string[];
  args?: string[];
  volumeMounts?: VolumeMount[];
  resources: ResourceRequirements;
  ports?: V1ContainerPort[];
  env?: V1EnvVar[];
  livenessProbe?: V1Probe;
  readinessProbe?: V1Probe;
}

/** Where a non-root launcher keeps libvirt's cache, config and runtime files. */
function xdgEnvironment(): V1EnvVar[] {
  return [
    { name: "XDG_CACHE_HOME", value: VirtPrivateDir },
    { name: "XDG_CONFIG_HOME", value: VirtPrivateDir },
    { name: "XDG_RUNTIME_DIR", value: "/var/run" },
  ];
}

export function containerSecurityContext(userId: number, capabilities?: V1Capabilities): V1SecurityContext {
  const nonRoot = userId !== 0;
  const context: V1SecurityContext = { runAsUser: userId, runAsNonRoot: nonRoot };
  if (capabilities) context.capabilities = capabilities;
  if (nonRoot) {
    context.runAsGroup = userId;
    context.allowPrivilegeEscalation = false;
  }
  return context;
}

/** Drops absent members so a rendered container compares equal to one read back from the apiserver. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}

export function renderContainerSpec(spec: ContainerSpec): Container {
  const env = [...(spec.userId !== 0 ? xdgEnvironment() : []), ...(spec.env ?? [])];
  return withoutUndefined<Container>({
    name: spec.name,
    image: spec.image,
    imagePullPolicy: spec.imagePullPolicy || undefined,
    securityContext: containerSecurityContext(spec.userId, spec.capabilities),
    command: spec.command,
    volumeMounts: spec.volumeMounts?.length ? spec.volumeMounts : undefined,
    resources: spec.resources,
    ports: spec.ports?.length ? spec.ports : undefined,
    env: env.length ? env : undefined,
    livenessProbe: spec.livenessProbe,
    readinessProbe: spec.readinessProbe,
    args: spec.args,
    terminationMessagePolicy: "FallbackToLogsOnError",
  });
}
