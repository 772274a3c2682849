import type { Pod as CorePod } from "../../../pkg/api/core/v1/pod.js";
import { z } from "zod";

// The parts of core/v1 objects the node agent reads, parsed from the apiserver's JSON. Loose objects keep
// fields we do not model, so a pod we only partly understand still parses; timestamps stay RFC 3339 strings.

const stringMap = z.record(z.string(), z.string());
export const intOrString = z.union([z.number().int(), z.string()]);

const objectMeta = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  deletionGracePeriodSeconds: z.number().optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
});

const keySelector = z.looseObject({
  name: z.string().optional(),
  key: z.string(),
  optional: z.boolean().optional(),
});
const objectFieldSelector = z.looseObject({ apiVersion: z.string().optional(), fieldPath: z.string() });
const resourceFieldSelector = z.looseObject({
  containerName: z.string().optional(),
  resource: z.string(),
  divisor: z.string().optional(), // a Quantity: the apiserver always serialises it as a string
});

export const envVarSchema = z.looseObject({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z
    .looseObject({
      fieldRef: objectFieldSelector.optional(),
      resourceFieldRef: resourceFieldSelector.optional(),
      configMapKeyRef: keySelector.optional(),
      secretKeyRef: keySelector.optional(),
    })
    .optional(),
});

const envFromSource = z.looseObject({
  prefix: z.string().optional(),
  configMapRef: z.looseObject({ name: z.string().optional(), optional: z.boolean().optional() }).optional(),
  secretRef: z.looseObject({ name: z.string().optional(), optional: z.boolean().optional() }).optional(),
});

const probeSchema = z.looseObject({
  exec: z.looseObject({ command: z.array(z.string()).optional() }).optional(),
  httpGet: z
    .looseObject({
      path: z.string().optional(),
      port: intOrString,
      host: z.string().optional(),
      scheme: z.string().optional(),
      httpHeaders: z.array(z.looseObject({ name: z.string(), value: z.string() })).optional(),
    })
    .optional(),
  tcpSocket: z.looseObject({ port: intOrString, host: z.string().optional() }).optional(),
  grpc: z.looseObject({ port: z.number(), service: z.string().optional() }).optional(),
  initialDelaySeconds: z.number().optional(),
  timeoutSeconds: z.number().optional(),
  periodSeconds: z.number().optional(),
  successThreshold: z.number().optional(),
  failureThreshold: z.number().optional(),
});

// Quantities: the apiserver always serialises them as strings ("500m", "64Mi").
const resourceList = z.record(z.string(), z.string());

export const containerSchema = z.looseObject({
  name: z.string(),
  image: z.string().optional(),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  workingDir: z.string().optional(),
  env: z.array(envVarSchema).optional(),
  envFrom: z.array(envFromSource).optional(),
  ports: z
    .array(
      z.looseObject({
        name: z.string().optional(),
        containerPort: z.number(),
        protocol: z.string().optional(),
      }),
    )
    .optional(),
  resources: z.looseObject({ limits: resourceList.optional(), requests: resourceList.optional() }).optional(),
  volumeMounts: z
    .array(
      z.looseObject({
        name: z.string(),
        mountPath: z.string(),
        readOnly: z.boolean().optional(),
        subPath: z.string().optional(),
        mountPropagation: z.string().optional(),
      }),
    )
    .optional(),
  volumeDevices: z.array(z.looseObject({ name: z.string(), devicePath: z.string() })).optional(),
  readinessProbe: probeSchema.optional(),
  livenessProbe: probeSchema.optional(),
  startupProbe: probeSchema.optional(),
  securityContext: z
    .looseObject({
      privileged: z.boolean().optional(),
      runAsUser: z.number().optional(),
      runAsGroup: z.number().optional(),
      capabilities: z
        .looseObject({ add: z.array(z.string()).optional(), drop: z.array(z.string()).optional() })
        .optional(),
    })
    .optional(),
  restartPolicy: z.string().optional(),
  terminationMessagePolicy: z.string().optional(),
});

const keyToPath = z.looseObject({ key: z.string(), path: z.string(), mode: z.number().optional() });
const downwardApiFile = z.looseObject({
  path: z.string(),
  fieldRef: objectFieldSelector.optional(),
  resourceFieldRef: resourceFieldSelector.optional(),
  mode: z.number().optional(),
});

const configMapProjection = z.looseObject({
  name: z.string().optional(),
  items: z.array(keyToPath).optional(),
  optional: z.boolean().optional(),
});
const secretProjection = configMapProjection;

export const volumeProjectionSchema = z.looseObject({
  configMap: configMapProjection.optional(),
  secret: secretProjection.optional(),
  downwardAPI: z.looseObject({ items: z.array(downwardApiFile).optional() }).optional(),
  serviceAccountToken: z
    .looseObject({
      audience: z.string().optional(),
      expirationSeconds: z.number().optional(),
      path: z.string(),
    })
    .optional(),
});

export const volumeSchema = z.looseObject({
  name: z.string(),
  emptyDir: z.looseObject({ medium: z.string().optional(), sizeLimit: z.string().optional() }).optional(),
  hostPath: z.looseObject({ path: z.string(), type: z.string().optional() }).optional(),
  configMap: configMapProjection.extend({ defaultMode: z.number().optional() }).optional(),
  secret: z
    .looseObject({
      secretName: z.string().optional(),
      items: z.array(keyToPath).optional(),
      defaultMode: z.number().optional(),
      optional: z.boolean().optional(),
    })
    .optional(),
  downwardAPI: z
    .looseObject({ items: z.array(downwardApiFile).optional(), defaultMode: z.number().optional() })
    .optional(),
  projected: z
    .looseObject({ sources: z.array(volumeProjectionSchema).optional(), defaultMode: z.number().optional() })
    .optional(),
  persistentVolumeClaim: z
    .looseObject({ claimName: z.string(), readOnly: z.boolean().optional() })
    .optional(),
});

const containerStateSchema = z.looseObject({
  waiting: z.looseObject({ reason: z.string().optional(), message: z.string().optional() }).optional(),
  running: z.looseObject({ startedAt: z.string().optional() }).optional(),
  terminated: z
    .looseObject({
      exitCode: z.number(),
      signal: z.number().optional(),
      reason: z.string().optional(),
      message: z.string().optional(),
      startedAt: z.string().optional(),
      finishedAt: z.string().optional(),
      containerID: z.string().optional(),
    })
    .optional(),
});

export const containerStatusSchema = z.looseObject({
  name: z.string(),
  state: containerStateSchema.optional(),
  lastState: containerStateSchema.optional(),
  ready: z.boolean().optional(),
  restartCount: z.number().optional(),
  image: z.string().optional(),
  imageID: z.string().optional(),
  containerID: z.string().optional(),
  started: z.boolean().optional(),
});

const podConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastProbeTime: z.string().nullable().optional(),
  lastTransitionTime: z.string().nullable().optional(),
});

export const podSchema = z.looseObject({
  metadata: objectMeta,
  spec: z.looseObject({
    nodeName: z.string().optional(),
    containers: z.array(containerSchema),
    initContainers: z.array(containerSchema).optional(),
    volumes: z.array(volumeSchema).optional(),
    restartPolicy: z.string().optional(),
    terminationGracePeriodSeconds: z.number().optional(),
    hostNetwork: z.boolean().optional(),
    dnsPolicy: z.string().optional(),
    dnsConfig: z
      .looseObject({
        nameservers: z.array(z.string()).optional(),
        searches: z.array(z.string()).optional(),
        options: z
          .array(z.looseObject({ name: z.string().optional(), value: z.string().optional() }))
          .optional(),
      })
      .optional(),
    hostPID: z.boolean().optional(),
    serviceAccountName: z.string().optional(),
    enableServiceLinks: z.boolean().optional(),
    hostname: z.string().optional(),
    subdomain: z.string().optional(),
    readinessGates: z.array(z.looseObject({ conditionType: z.string() })).optional(),
    securityContext: z
      .looseObject({
        runAsUser: z.number().optional(),
        runAsGroup: z.number().optional(),
        fsGroup: z.number().optional(),
        fsGroupChangePolicy: z.string().optional(),
      })
      .optional(),
  }),
  status: z
    .looseObject({
      phase: z.string().optional(),
      reason: z.string().optional(),
      message: z.string().optional(),
      podIP: z.string().optional(),
      hostIP: z.string().optional(),
      startTime: z.string().optional(),
      conditions: z.array(podConditionSchema).optional(),
      containerStatuses: z.array(containerStatusSchema).optional(),
      initContainerStatuses: z.array(containerStatusSchema).optional(),
    })
    .optional(),
});

export const configMapSchema = z.looseObject({
  metadata: objectMeta,
  data: stringMap.optional(),
  binaryData: stringMap.optional(),
});

export const secretSchema = z.looseObject({
  metadata: objectMeta,
  // Secret data is base64 on the wire.
  data: stringMap.optional(),
});

export const persistentVolumeClaimSchema = z.looseObject({
  metadata: objectMeta,
  spec: z.looseObject({ volumeName: z.string().optional(), volumeMode: z.string().optional() }).optional(),
  status: z.looseObject({ phase: z.string().optional() }).optional(),
});

export const persistentVolumeSchema = z.looseObject({
  metadata: objectMeta,
  spec: z
    .looseObject({
      volumeMode: z.string().optional(),
      hostPath: z.looseObject({ path: z.string(), type: z.string().optional() }).optional(),
      local: z.looseObject({ path: z.string(), fsType: z.string().optional() }).optional(),
      claimRef: z
        .looseObject({
          namespace: z.string().optional(),
          name: z.string().optional(),
          uid: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
  // Released once its claim is gone (the local-block recycler's cue: local-block-recycler.ts)
  status: z.looseObject({ phase: z.string().optional() }).optional(),
});

export const nodeSchema = z.looseObject({
  metadata: objectMeta,
  spec: z
    .looseObject({ podCIDR: z.string().optional(), podCIDRs: z.array(z.string()).optional() })
    .optional(),
  status: z
    .looseObject({
      capacity: stringMap.optional(),
      allocatable: stringMap.optional(),
      conditions: z.array(podConditionSchema.extend({ lastHeartbeatTime: z.string().optional() })).optional(),
    })
    .optional(),
});

export const leaseSchema = z.looseObject({
  metadata: objectMeta,
  spec: z
    .looseObject({
      holderIdentity: z.string().optional(),
      leaseDurationSeconds: z.number().optional(),
      renewTime: z.string().optional(),
    })
    .optional(),
});

export const versionSchema = z.looseObject({ gitVersion: z.string() });
export const tokenRequestSchema = z.looseObject({
  status: z.looseObject({ token: z.string(), expirationTimestamp: z.string() }),
});

export type Pod = z.infer<typeof podSchema>;
export type Container = z.infer<typeof containerSchema>;
export type EnvVar = z.infer<typeof envVarSchema>;
export type Volume = z.infer<typeof volumeSchema>;
export type VolumeProjection = z.infer<typeof volumeProjectionSchema>;
export type Probe = z.infer<typeof probeSchema>;
export type ContainerStatus = z.infer<typeof containerStatusSchema>;
export type PodCondition = z.infer<typeof podConditionSchema>;
export type ConfigMap = z.infer<typeof configMapSchema>;
export type Secret = z.infer<typeof secretSchema>;
export type PersistentVolumeClaim = z.infer<typeof persistentVolumeClaimSchema>;
export type PersistentVolume = z.infer<typeof persistentVolumeSchema>;
export type Node = z.infer<typeof nodeSchema>;
export type Lease = z.infer<typeof leaseSchema>;
export type TokenRequestResult = z.infer<typeof tokenRequestSchema>;
export type IntOrString = z.infer<typeof intOrString>;

/**
 * The agent's Pod is the repository's one core/v1 Pod (pkg/api/core/v1/pod.ts) as kubelet needs it: the
 * schema checks at the boundary that what the agent reads is present. This assignment fails to compile if
 * the two ever disagree.
 */
export const asCorePod = (pod: Pod): CorePod => pod;
