// Names of the objects virt-operator installs, as upstream's components package spells them.

export const VIRT_API_NAME = "virt-api";
export const VIRT_CONTROLLER_NAME = "virt-controller";
export const VIRT_HANDLER_NAME = "virt-handler";
export const VIRT_OPERATOR_NAME = "virt-operator";
export const VIRT_LAUNCHER_NAME = "virt-launcher";

export const API_SERVICE_ACCOUNT = "kubevirt-apiserver";
export const CONTROLLER_SERVICE_ACCOUNT = "kubevirt-controller";
export const HANDLER_SERVICE_ACCOUNT = "kubevirt-handler";
export const OPERATOR_SERVICE_ACCOUNT = "kubevirt-operator";

export const VIRT_API_SERVICE = "virt-api";
export const OPERATOR_WEBHOOK_SERVICE = "kubevirt-operator-webhook";
export const PROMETHEUS_SERVICE = "kubevirt-prometheus-metrics";

export const KUBEVIRT_CA_SECRET = "kubevirt-ca";
export const EXTERNAL_KUBEVIRT_CA_CONFIGMAP = "kubevirt-external-ca";
export const VIRT_API_CERT_SECRET = "kubevirt-virt-api-certs";
export const VIRT_CONTROLLER_CERT_SECRET = "kubevirt-controller-certs";
export const VIRT_OPERATOR_CERT_SECRET = "kubevirt-operator-certs";
export const VIRT_HANDLER_SERVER_CERT_SECRET = "kubevirt-virt-handler-server-certs";
/** The client certificate virt-api presents to virt-handler. */
export const VIRT_HANDLER_CLIENT_CERT_SECRET = "kubevirt-virt-handler-certs";
export const VIRT_HANDLER_MIGRATION_CLIENT_CERT_SECRET = "kubevirt-virt-handler-migration-client-certs";
/** Key of the CA bundle in the `kubevirt-ca` ConfigMap. */
export const CA_BUNDLE_KEY = "ca-bundle";

export const VIRT_API_VALIDATING_WEBHOOK = "virt-api-validator";
export const VIRT_API_MUTATING_WEBHOOK = "virt-api-mutator";
export const VIRT_OPERATOR_VALIDATING_WEBHOOK = "virt-operator-validator";
/** Name prefix of the placeholder webhook that blocks new custom resources until virt-api serves. */
export const DUMMY_WEBHOOK_PREFIX = "virt-operator-tmp-webhook";

export const PRIORITY_CLASS = "kubevirt-cluster-critical";

/** The subresource API groups virt-api serves through the aggregator, newest first. */
export const SUBRESOURCE_GROUP = "subresources.kubevirt.io";
export const SUBRESOURCE_VERSIONS = ["v1", "v1alpha3"] as const;

// virt-api's webhook paths.
export const VMI_CREATE_VALIDATE_PATH = "/virtualmachineinstances-validate-create";
export const VMI_UPDATE_VALIDATE_PATH = "/virtualmachineinstances-validate-update";
export const VM_VALIDATE_PATH = "/virtualmachines-validate";
export const VMIRS_VALIDATE_PATH = "/virtualmachinereplicaset-validate";
export const VMPOOL_VALIDATE_PATH = "/virtualmachinepool-validate";
export const VMIPRESET_VALIDATE_PATH = "/vmipreset-validate";
export const MIGRATION_CREATE_VALIDATE_PATH = "/migration-validate-create";
export const MIGRATION_UPDATE_VALIDATE_PATH = "/migration-validate-update";
export const VM_MUTATE_PATH = "/virtualmachines-mutate";
export const VMI_MUTATE_PATH = "/virtualmachineinstances-mutate";
export const MIGRATION_MUTATE_PATH = "/migration-mutate-create";
export const VM_SNAPSHOT_VALIDATE_PATH = "/virtualmachinesnapshots-validate";
export const VM_RESTORE_VALIDATE_PATH = "/virtualmachinerestores-validate";
export const VM_BACKUP_VALIDATE_PATH = "/virtualmachinebackups-validate";
export const VM_BACKUP_TRACKER_VALIDATE_PATH = "/virtualmachinebackuptrackers-validate";
export const VM_EXPORT_VALIDATE_PATH = "/virtualmachineexports-validate";
export const VM_INSTANCETYPE_VALIDATE_PATH = "/virtualmachineinstancetypes-validate";
export const VM_CLUSTER_INSTANCETYPE_VALIDATE_PATH = "/virtualmachineclusterinstancetypes-validate";
export const VM_PREFERENCE_VALIDATE_PATH = "/virtualmachinepreferences-validate";
export const VM_CLUSTER_PREFERENCE_VALIDATE_PATH = "/virtualmachineclusterpreferences-validate";
export const STATUS_VALIDATE_PATH = "/status-validate";
export const POD_EVICTION_VALIDATE_PATH = "/pod-eviction-validate";
export const MIGRATION_POLICY_CREATE_VALIDATE_PATH = "/migration-policy-validate-create";
export const VM_CLONE_CREATE_VALIDATE_PATH = "/vm-clone-validate-create";
export const VM_CLONE_CREATE_MUTATE_PATH = "/vm-clone-mutate-create";

// virt-operator's own webhook paths (served on its `webhooks` port, 8444).
export const KUBEVIRT_DELETE_VALIDATE_PATH = "/kubevirt-validate-delete";
export const KUBEVIRT_UPDATE_VALIDATE_PATH = "/kubevirt-validate-update";
export const KUBEVIRT_CREATE_VALIDATE_PATH = "/kubevirt-validate-create";
