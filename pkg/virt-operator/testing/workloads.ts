// Plays the parts of the Deployment/DaemonSet controllers and the kubelet for operator unit tests: running,
// ready pods of an installed workload, with the pod template's labels and annotations.
import { OPERATOR_RESOURCES, WATCHED_RESOURCES } from "../resources.js";
import type { DaemonSet, Deployment, Pod } from "../resource/generate/components/k8s-types.js";
import type { FakeCluster } from "./fake-cluster.js";

function readyPod(owner: Deployment | DaemonSet, index: number): Pod {
  const template = owner.spec.template.metadata;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      namespace: owner.metadata?.namespace,
      name: `${owner.metadata?.name}-${index}`,
      labels: { ...template?.labels },
      annotations: { ...template?.annotations },
    },
    spec: {
      containers: (owner.spec.template.spec?.containers ?? []).map(({ name, image }) => ({ name, image })),
    },
    status: {
      phase: "Running",
      containerStatuses: [{ name: "c", ready: true, restartCount: 0, image: "", imageID: "" }],
    },
  };
}

export function makeDeploymentReady(cluster: FakeCluster, key: string): void {
  const deployment = cluster.object<Deployment>(OPERATOR_RESOURCES.deployments, key);
  if (!deployment) throw new Error(`no deployment ${key}`);
  cluster.seed(WATCHED_RESOURCES.pods, readyPod(deployment, 0));
  cluster.seed(OPERATOR_RESOURCES.deployments, { ...deployment, status: { replicas: 1, readyReplicas: 1 } });
}

export function makeDaemonSetReady(cluster: FakeCluster, key: string, nodes = 1): void {
  const daemonSet = cluster.object<DaemonSet>(OPERATOR_RESOURCES.daemonSets, key);
  if (!daemonSet) throw new Error(`no daemonset ${key}`);
  for (let i = 0; i < nodes; i++) cluster.seed(WATCHED_RESOURCES.pods, readyPod(daemonSet, i));
  cluster.seed(OPERATOR_RESOURCES.daemonSets, {
    ...daemonSet,
    status: {
      desiredNumberScheduled: nodes,
      numberReady: nodes,
      currentNumberScheduled: nodes,
      numberMisscheduled: 0,
    },
  });
}
