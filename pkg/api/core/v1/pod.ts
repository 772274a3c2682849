// The core/v1 Pod as the components render and read it (virt-controller, virt-operator, virt-handler). The spec reuses @kubernetes/client-node's
// models (plain fields, no dates); metadata is the machinery's KubeObject so Pods flow through the typed
// client and informers; status keeps timestamps as the strings the apiserver sends.
import type {
  V1Container,
  V1PodSpec,
  V1ResourceRequirements,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";
import type { Condition } from "../../../controller/conditions.js";
import type { KubeObject, ObjectMeta } from "../../../controller/object.js";

export type Container = V1Container;
export type PodSpec = V1PodSpec;
export type Volume = V1Volume;
export type VolumeMount = V1VolumeMount;
export type ResourceRequirements = V1ResourceRequirements;
/** Resource name → quantity, as a Pod spec writes it. */
export type ResourceList = Record<string, string>;

/** A Pod condition has the shape every condition has (pkg/controller/conditions.ts). */
export type PodCondition = Condition;

export interface ContainerState {
  running?: { startedAt?: string };
  terminated?: { exitCode: number; reason?: string; message?: string };
  waiting?: { reason?: string; message?: string };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  image?: string;
  imageID?: string;
  containerID?: string;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  qosClass?: string;
  podIP?: string;
}

export interface Pod extends KubeObject {
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}
