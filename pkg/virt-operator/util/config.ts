// What a KubeVirt install is made of, as upstream's KubeVirtDeploymentConfig holds it: the image registry
// and tag (from the operator's own image, overridden by the KubeVirt CR), per-component image overrides
// from the environment, the CR's spec fields that shape the install, and an ID hashing all of it.
import { createHash } from "node:crypto";
import type { KubeVirt, KubeVirtStatus } from "../../api/generated/v1.js";

export const VIRT_OPERATOR_IMAGE_ENV = "VIRT_OPERATOR_IMAGE";
export const OLD_OPERATOR_IMAGE_ENV = "OPERATOR_IMAGE";
export const VIRT_API_IMAGE_ENV = "VIRT_API_IMAGE";
export const VIRT_CONTROLLER_IMAGE_ENV = "VIRT_CONTROLLER_IMAGE";
export const VIRT_HANDLER_IMAGE_ENV = "VIRT_HANDLER_IMAGE";
export const VIRT_LAUNCHER_IMAGE_ENV = "VIRT_LAUNCHER_IMAGE";
export const KUBEVIRT_VERSION_ENV = "KUBEVIRT_VERSION";
/** Variables with this prefix are passed, without it, to every component. */
export const PASSTHROUGH_ENV_PREFIX = "KV_IO_EXTRA_ENV_";

export type Env = Readonly<Record<string, string | undefined>>;

export interface ComponentImages {
  virtOperatorImage?: string;
  virtApiImage?: string;
  virtControllerImage?: string;
  virtHandlerImage?: string;
  virtLauncherImage?: string;
}

export interface KubeVirtDeploymentConfig extends ComponentImages {
  id: string;
  namespace: string;
  registry: string;
  imagePrefix: string;
  /** The image tag; shown as the KubeVirt version on the CR and on installed objects. */
  kubeVirtVersion: string;
  /** The CR spec fields that shape the install, keyed by upstream's Go field names. */
  additionalProperties: Record<string, string>;
  passthroughEnvVars: Record<string, string>;
}

const OPERATOR_IMAGE_PATTERN = /^(.*)\/(.*)virt-operator([@:].*)?$/;

/** Spec fields copied into the config (and so into its ID), with upstream's Go field names. */
function specProperties(kv: KubeVirt): Record<string, string> {
  const spec = kv.spec;
  const properties: Record<string, string> = {
    ImagePullPolicy: spec.imagePullPolicy ?? "",
    MonitorNamespace: spec.monitorNamespace ?? "",
    ServiceMonitorNamespace: spec.serviceMonitorNamespace ?? "",
    MonitorAccount: spec.monitorAccount ?? "",
    UninstallStrategy: spec.uninstallStrategy ?? "",
    ProductName: spec.productName ?? "",
    ProductVersion: spec.productVersion ?? "",
    ProductComponent: spec.productComponent ?? "",
  };
  properties["ImagePullSecrets"] = JSON.stringify(spec.imagePullSecrets ?? null);
  return properties;
}

function passthroughEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(PASSTHROUGH_ENV_PREFIX) && value !== undefined) {
      out[name.slice(PASSTHROUGH_ENV_PREFIX.length)] = value;
    }
  }
  return out;
}

export function operatorImageFromEnv(env: Env): string {
  return env[VIRT_OPERATOR_IMAGE_ENV] || env[OLD_OPERATOR_IMAGE_ENV] || "";
}

/** Registry, prefix and tag as upstream reads them off the operator image `<registry>/<prefix>virt-operator:<tag>`. */
function parseOperatorImage(image: string, fallbackVersion: string) {
  const match = OPERATOR_IMAGE_PATTERN.exec(image);
  if (!match) return { registry: "", imagePrefix: "", tag: fallbackVersion };
  const suffix = match[3] ?? "";
  // A digest says nothing about the version: fall back to KUBEVIRT_VERSION.
  const tag = suffix === "" ? "latest" : suffix.startsWith(":") ? suffix.slice(1) : fallbackVersion;
  return { registry: match[1] ?? "", imagePrefix: match[2] ?? "", tag };
}

/** The config of the install a KubeVirt CR asks for (upstream's GetTargetConfigFromKV). */
export function targetConfigFromKubeVirt(kv: KubeVirt, env: Env): KubeVirtDeploymentConfig {
  const operatorImage = operatorImageFromEnv(env);
  const fallbackVersion = env[KUBEVIRT_VERSION_ENV] || "latest";
  const parsed = parseOperatorImage(operatorImage, fallbackVersion);
  const providedRegistry = kv.spec.imageRegistry ?? "";
  const providedTag = kv.spec.imageTag ?? "";
  const registry = providedRegistry || parsed.registry;
  const tag = providedTag || parsed.tag;
  const ownImage =
    providedRegistry === "" && providedTag === "" ? operatorImage : `${registry}/virt-operator:${tag}`;
  return withId({
    id: "",
    namespace: kv.metadata?.namespace ?? "",
    registry,
    imagePrefix: parsed.imagePrefix,
    kubeVirtVersion: tag,
    virtOperatorImage: ownImage,
    virtApiImage: env[VIRT_API_IMAGE_ENV] || undefined,
    virtControllerImage: env[VIRT_CONTROLLER_IMAGE_ENV] || undefined,
    virtHandlerImage: env[VIRT_HANDLER_IMAGE_ENV] || undefined,
    virtLauncherImage: env[VIRT_LAUNCHER_IMAGE_ENV] || undefined,
    additionalProperties: specProperties(kv),
    passthroughEnvVars: passthroughEnv(env),
  });
}

/** Every field in a fixed order, so equal configs hash equal whatever order maps were built in. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
}

function withId(config: KubeVirtDeploymentConfig): KubeVirtDeploymentConfig {
  const { id: _ignored, ...fields } = config;
  // Like upstream: an identifier of the install, not a secret, so SHA-1 is fine.
  const id = createHash("sha1")
    .update(JSON.stringify(canonical(fields)))
    .digest("hex");
  return { ...config, id };
}

export function configJson(config: KubeVirtDeploymentConfig): string {
  return JSON.stringify(canonical(config));
}

export function imagePullPolicyOf(config: KubeVirtDeploymentConfig): string {
  return config.additionalProperties["ImagePullPolicy"] || "IfNotPresent";
}

export function imagePullSecretsOf(config: KubeVirtDeploymentConfig): Array<{ name: string }> {
  try {
    const parsed = JSON.parse(config.additionalProperties["ImagePullSecrets"] ?? "null") as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (s): s is { name: string } => typeof s === "object" && s !== null && typeof s.name === "string",
    );
  } catch {
    return [];
  }
}

/** The `app.kubernetes.io/version` of installed pods: upstream falls back to the KubeVirt version. */
export function productVersionOf(config: KubeVirtDeploymentConfig): string {
  return config.additionalProperties["productVersion"] ?? config.kubeVirtVersion;
}

/** Component log verbosity; upstream does not make it configurable yet. */
export function verbosityOf(_config: KubeVirtDeploymentConfig): string {
  return "2";
}

export function setTargetDeploymentConfig(status: KubeVirtStatus, config: KubeVirtDeploymentConfig): void {
  status.targetKubeVirtVersion = config.kubeVirtVersion;
  status.targetKubeVirtRegistry = config.registry;
  status.targetDeploymentID = config.id;
  status.targetDeploymentConfig = configJson(config);
}

export function setObservedDeploymentConfig(status: KubeVirtStatus, config: KubeVirtDeploymentConfig): void {
  status.observedKubeVirtVersion = config.kubeVirtVersion;
  status.observedKubeVirtRegistry = config.registry;
  status.observedDeploymentID = config.id;
  status.observedDeploymentConfig = configJson(config);
}

/** The image of a component: an explicit override, else `<registry>/<prefix><name>:<tag>`. */
export function componentImage(
  config: KubeVirtDeploymentConfig,
  name: string,
  override: string | undefined,
): string {
  return override || `${config.registry}/${config.imagePrefix}${name}:${config.kubeVirtVersion}`;
}
