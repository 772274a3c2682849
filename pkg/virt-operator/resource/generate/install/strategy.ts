// The install strategy: every object one KubeVirt version installs, generated from the deployment config
// (upstream's install/strategy.go GenerateCurrentInstallStrategy). Upstream runs a Job of the target
// version's operator image to dump the strategy into a ConfigMap, so that an operator can install other
// versions than its own; this operator installs its own version only and generates the strategy in-process.
import type { CustomResourceDefinition } from "../components/crds.js";
import { allCustomResourceDefinitions } from "../components/crds.js";
import { newVirtApiAPIServices } from "../components/apiservices.js";
import { newHandlerDaemonSet } from "../components/daemonsets.js";
import { newApiServerDeployment, newControllerDeployment } from "../components/deployments.js";
import type {
  APIService,
  ClusterRole,
  ClusterRoleBinding,
  ConfigMap,
  DaemonSet,
  Deployment,
  MutatingWebhookConfiguration,
  Role,
  RoleBinding,
  Secret,
  Service,
  ServiceAccount,
  ValidatingWebhookConfiguration,
} from "../components/k8s-types.js";
import type {
  VirtualMachineClusterInstancetype,
  VirtualMachineClusterPreference,
} from "../../../../api/generated/v1beta1.js";
import { newClusterInstancetypes, newClusterPreferences } from "../components/instancetypes.js";
import { newCACertSecrets, newCAConfigMaps, newCertSecrets } from "../components/secrets.js";
import {
  newApiServerService,
  newOperatorWebhookService,
  newPrometheusService,
} from "../components/services.js";
import {
  newOperatorValidatingWebhookConfiguration,
  newVirtApiMutatingWebhookConfiguration,
  newVirtApiValidatingWebhookConfiguration,
} from "../components/webhooks.js";
import { installedRbac } from "../rbac/operator.js";
import type { KubeVirtDeploymentConfig } from "../../../util/config.js";
import { productVersionOf } from "../../../util/config.js";
import { isValidLabelValue } from "../../../util/labels.js";

/** The KubeVirt CRD itself ships with the operator manifest, not in the strategy. */
export const KUBEVIRT_CRD_NAME = "kubevirts.kubevirt.io";

export interface InstallStrategy {
  crds: CustomResourceDefinition[];
  serviceAccounts: ServiceAccount[];
  clusterRoles: ClusterRole[];
  clusterRoleBindings: ClusterRoleBinding[];
  roles: Role[];
  roleBindings: RoleBinding[];
  services: Service[];
  /** virt-api: rolled out first, so objects are validated before any controller acts on them. */
  apiDeployments: Deployment[];
  controllerDeployments: Deployment[];
  daemonSets: DaemonSet[];
  validatingWebhookConfigurations: ValidatingWebhookConfiguration[];
  mutatingWebhookConfigurations: MutatingWebhookConfiguration[];
  apiServices: APIService[];
  /** The CA first, then the certificates it signs. */
  certificateSecrets: Secret[];
  configMaps: ConfigMap[];
  /** The common-instancetypes bundle, deployed unless the CR's configuration turns it off. */
  instancetypes: VirtualMachineClusterInstancetype[];
  preferences: VirtualMachineClusterPreference[];
}

export function generateInstallStrategy(
  config: KubeVirtDeploymentConfig,
  operatorNamespace: string,
  swagger: unknown,
): InstallStrategy {
  const namespace = config.namespace;
  const productVersion = productVersionOf(config);
  // Invalid label values are dropped, as upstream logs and drops them.
  const product = { productVersion: isValidLabelValue(productVersion) ? productVersion : undefined };
  const rbac = installedRbac(namespace);
  return {
    crds: allCustomResourceDefinitions(swagger).filter((crd) => crd.metadata.name !== KUBEVIRT_CRD_NAME),
    ...rbac,
    services: [
      newPrometheusService(namespace),
      newApiServerService(namespace),
      newOperatorWebhookService(operatorNamespace),
    ],
    apiDeployments: [newApiServerDeployment(config, product)],
    controllerDeployments: [newControllerDeployment(config, product)],
    daemonSets: [newHandlerDaemonSet(config, product)],
    validatingWebhookConfigurations: [
      newOperatorValidatingWebhookConfiguration(operatorNamespace),
      newVirtApiValidatingWebhookConfiguration(namespace),
    ],
    mutatingWebhookConfigurations: [newVirtApiMutatingWebhookConfiguration(namespace)],
    apiServices: newVirtApiAPIServices(namespace),
    certificateSecrets: [
      ...newCACertSecrets(operatorNamespace),
      ...newCertSecrets(namespace, operatorNamespace),
    ],
    configMaps: newCAConfigMaps(operatorNamespace),
    instancetypes: newClusterInstancetypes(),
    preferences: newClusterPreferences(),
  };
}

export function allDeployments(strategy: InstallStrategy): Deployment[] {
  return [...strategy.apiDeployments, ...strategy.controllerDeployments];
}
