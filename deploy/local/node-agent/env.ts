import type {
  ConfigMap,
  Container,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  Secret,
} from "./k8s-types.js";
import {
  containerResourceValue,
  DownwardApiError,
  podFieldValue,
  type NodeAllocatable,
  type PodRuntimeFacts,
} from "./downward-api.js";

// A container's environment, resolved the way kubelet's makeEnvironmentVariables does: the in-cluster
// service variables, then envFrom sources in order, then env entries in order ($(VAR) references expand
// against what is defined so far); a missing non-optional ConfigMap/Secret or key is a
// CreateContainerConfigError with kubelet's message.

/** Any failure that kubelet reports as CreateContainerConfigError. */
export class ContainerConfigError extends Error {}

export interface ObjectSource {
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<Secret | undefined>;
  persistentVolumeClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
  persistentVolume(name: string): Promise<PersistentVolume | undefined>;
}

export interface EnvContext {
  pod: Pod;
  container: Container;
  runtime: PodRuntimeFacts;
  allocatable: NodeAllocatable;
  /** The `kubernetes` Service's cluster IP and port, which kube-proxy maps to the apiserver. */
  apiService: { host: string; port: number };
  objects: ObjectSource;
}

export type EnvMap = Map<string, string>;

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** Expands $(VAR) from `lookup`; $$ escapes a dollar; unknown references stay as written. */
export function expandVars(input: string, lookup: (name: string) => string | undefined): string {
  let out = "";
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    const next = input[i + 1];
    if (ch !== "$" || next === undefined) {
      out += ch;
    } else if (next === "$") {
      out += "$";
      i++;
    } else if (next === "(") {
      const close = input.indexOf(")", i + 2);
      if (close < 0) {
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, close);
      out += lookup(name) ?? `$(${name})`;
      i = close;
    } else {
      out += ch + next;
      i++;
    }
  }
  return out;
}

/** The variables kubelet injects for the master Service, e.g. KUBERNETES_SERVICE_HOST. */
export function apiServiceEnv(host: string, port: number): EnvMap {
  const url = `tcp://${host}:${port}`;
  return new Map([
    ["KUBERNETES_SERVICE_HOST", host],
    ["KUBERNETES_SERVICE_PORT", String(port)],
    ["KUBERNETES_SERVICE_PORT_HTTPS", String(port)],
    ["KUBERNETES_PORT", url],
    [`KUBERNETES_PORT_${port}_TCP`, url],
    [`KUBERNETES_PORT_${port}_TCP_PROTO`, "tcp"],
    [`KUBERNETES_PORT_${port}_TCP_PORT`, String(port)],
    [`KUBERNETES_PORT_${port}_TCP_ADDR`, host],
  ]);
}

function decodeSecret(value: string): string {
  return Buffer.from(value, "base64").toString("utf8");
}

async function fetchConfigMap(ctx: EnvContext, name: string): Promise<ConfigMap | undefined> {
  return ctx.objects.configMap(ctx.pod.metadata.namespace ?? "default", name);
}

async function fetchSecret(ctx: EnvContext, name: string): Promise<Secret | undefined> {
  return ctx.objects.secret(ctx.pod.metadata.namespace ?? "default", name);
}

async function addEnvFrom(ctx: EnvContext, env: EnvMap): Promise<void> {
  for (const source of ctx.container.envFrom ?? []) {
    let data: Record<string, string> | undefined;
    if (source.configMapRef) {
      const name = source.configMapRef.name ?? "";
      const cm = await fetchConfigMap(ctx, name);
      if (!cm && source.configMapRef.optional) continue;
      if (!cm) throw new ContainerConfigError(`configmap "${name}" not found`);
      data = cm.data ?? {};
    } else if (source.secretRef) {
      const name = source.secretRef.name ?? "";
      const secret = await fetchSecret(ctx, name);
      if (!secret && source.secretRef.optional) continue;
      if (!secret) throw new ContainerConfigError(`secret "${name}" not found`);
      data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, decodeSecret(v)]));
    }
    for (const [key, value] of Object.entries(data ?? {})) {
      const name = (source.prefix ?? "") + key;
      // kubelet skips keys that are not valid variable names (and reports them in an event).
      if (ENV_NAME.test(name)) env.set(name, value);
    }
  }
}

async function valueFrom(
  ctx: EnvContext,
  entry: NonNullable<Container["env"]>[number],
): Promise<string | undefined> {
  const from = entry.valueFrom;
  const namespace = ctx.pod.metadata.namespace ?? "default";
  if (!from) return undefined;
  try {
    if (from.fieldRef) return podFieldValue(ctx.pod, from.fieldRef.fieldPath, ctx.runtime);
    if (from.resourceFieldRef) {
      const ref = from.resourceFieldRef;
      const target = ref.containerName
        ? [...ctx.pod.spec.containers, ...(ctx.pod.spec.initContainers ?? [])].find(
            (c) => c.name === ref.containerName,
          )
        : ctx.container;
      if (!target) throw new DownwardApiError(`container ${ref.containerName} not found`);
      return containerResourceValue(target, ref.resource, ref.divisor, ctx.allocatable);
    }
  } catch (err) {
    if (err instanceof DownwardApiError) throw new ContainerConfigError(err.message);
    throw err;
  }
  if (from.configMapKeyRef) {
    const ref = from.configMapKeyRef;
    const name = ref.name ?? "";
    const cm = await fetchConfigMap(ctx, name);
    if (!cm && ref.optional) return undefined;
    if (!cm) throw new ContainerConfigError(`configmap "${name}" not found`);
    const value = cm.data?.[ref.key];
    if (value === undefined && ref.optional) return undefined;
    if (value === undefined)
      throw new ContainerConfigError(`couldn't find key ${ref.key} in ConfigMap ${namespace}/${name}`);
    return value;
  }
  if (from.secretKeyRef) {
    const ref = from.secretKeyRef;
    const name = ref.name ?? "";
    const secret = await fetchSecret(ctx, name);
    if (!secret && ref.optional) return undefined;
    if (!secret) throw new ContainerConfigError(`secret "${name}" not found`);
    const value = secret.data?.[ref.key];
    if (value === undefined && ref.optional) return undefined;
    if (value === undefined)
      throw new ContainerConfigError(`couldn't find key ${ref.key} in Secret ${namespace}/${name}`);
    return decodeSecret(value);
  }
  return undefined;
}

/** Resolves the container's environment; throws ContainerConfigError for what kubelet would refuse. */
export async function resolveEnv(ctx: EnvContext): Promise<EnvMap> {
  const serviceEnv = apiServiceEnv(ctx.apiService.host, ctx.apiService.port);
  const env: EnvMap = new Map();
  await addEnvFrom(ctx, env);
  const lookup = (name: string): string | undefined => env.get(name) ?? serviceEnv.get(name);
  for (const entry of ctx.container.env ?? []) {
    if (entry.valueFrom) {
      const value = await valueFrom(ctx, entry);
      if (value !== undefined) env.set(entry.name, value);
    } else {
      env.set(entry.name, expandVars(entry.value ?? "", lookup));
    }
  }
  for (const [name, value] of serviceEnv) if (!env.has(name)) env.set(name, value);
  return env;
}

/** The container's command and args with $(VAR) references expanded against its environment. */
export function expandCommand(container: Container, env: EnvMap): { command?: string[]; args?: string[] } {
  const expand = (list: string[] | undefined) => list?.map((s) => expandVars(s, (n) => env.get(n)));
  const command = expand(container.command);
  const args = expand(container.args);
  return { ...(command ? { command } : {}), ...(args ? { args } : {}) };
}
