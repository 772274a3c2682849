// Label, annotation and finalizer names virt-operator writes on what it installs, as upstream's
// kubevirt.io/api/core/v1 spells them.

/** The app label every kubevirt object carries; on pods its value names the component. */
export const APP_LABEL = "kubevirt.io";
export const APP_NAME_LABEL = "app.kubernetes.io/name";
export const APP_VERSION_LABEL = "app.kubernetes.io/version";
export const APP_PART_OF_LABEL = "app.kubernetes.io/part-of";
export const APP_COMPONENT_LABEL = "app.kubernetes.io/component";
export const APP_COMPONENT = "kubevirt";
/** Upstream's pod template label `name: <component>` on the operator's own pods. */
export const APP_NAME_SHORT_LABEL = "name";

export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY_OPERATOR = "virt-operator";
/** What older operators wrote; still recognised as "ours". */
export const MANAGED_BY_OPERATOR_OLD = "kubevirt-operator";
/** The label selector of every informer over installed objects. */
export const OPERATOR_LABEL_SELECTOR = `${MANAGED_BY_LABEL} in (${MANAGED_BY_OPERATOR},${MANAGED_BY_OPERATOR_OLD})`;

export const PROMETHEUS_LABEL = "prometheus.kubevirt.io";
export const PROMETHEUS_LABEL_VALUE = "true";
export const ALLOW_ACCESS_CLUSTER_SERVICES_LABEL = "np.kubevirt.io/allow-access-cluster-services";

export const INSTALL_STRATEGY_VERSION_ANNOTATION = "kubevirt.io/install-strategy-version";
export const INSTALL_STRATEGY_REGISTRY_ANNOTATION = "kubevirt.io/install-strategy-registry";
export const INSTALL_STRATEGY_IDENTIFIER_ANNOTATION = "kubevirt.io/install-strategy-identifier";
export const KUBEVIRT_GENERATION_ANNOTATION = "kubevirt.io/generation";
/** A hash of the CR's spec.customizeComponents, on every object they were applied to. */
export const KUBEVIRT_CUSTOMIZE_COMPONENT_ANNOTATION_HASH = "kubevirt.io/customizer-identifier";
export const INSTALL_STRATEGY_LABEL = "kubevirt.io/install-strategy";
/** Which Secret holds the serving certificate whose CA a webhook configuration or APIService trusts. */
export const CERTIFICATES_SECRET_ANNOTATION = "certificates.kubevirt.io/secret";
/** The validity a certificate Secret was issued with, as a Go duration ("24h0m0s"). */
export const CERTIFICATE_DURATION_ANNOTATION = "kubevirt.io/duration";

export const LATEST_OBSERVED_API_VERSION_ANNOTATION = "kubevirt.io/latest-observed-api-version";
export const STORAGE_OBSERVED_API_VERSION_ANNOTATION = "kubevirt.io/storage-observed-api-version";
export const API_LATEST_VERSION = "v1";
export const API_STORAGE_VERSION = "v1";

/** Keeps the KubeVirt CR until everything it installed is gone. */
export const KUBEVIRT_FINALIZER = "kubevirt.io/foregroundDeleteKubeVirt";
export const DEPRECATED_KUBEVIRT_FINALIZER = "foregroundDeleteKubeVirt";
/** Keeps installed CRDs until every custom resource of them is gone. */
export const VIRT_OPERATOR_COMPONENT_FINALIZER = "kubevirt.io/virtOperatorFinalizer";

/** Node label virt-handler sets; every `kubevirt.io/` node label is removed on uninstall. */
export const NODE_SCHEDULABLE_LABEL = "kubevirt.io/schedulable";

export function isManagedByOperator(labels: Readonly<Record<string, string>> | undefined): boolean {
  const value = labels?.[MANAGED_BY_LABEL];
  return value === MANAGED_BY_OPERATOR || value === MANAGED_BY_OPERATOR_OLD;
}

/** Upstream's IsValidLabel: empty, or up to 63 characters of [A-Za-z0-9._-] starting and ending alphanumeric. */
export function isValidLabelValue(value: string): boolean {
  return /^([a-z0-9A-Z]([a-z0-9A-Z\-_.]{0,61}[a-z0-9A-Z])?)?$/.test(value);
}
