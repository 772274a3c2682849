// kubectl's client configuration conventions: the kubeconfig comes from --kubeconfig, else the
// files listed in $KUBECONFIG, else ~/.kube/config, else the in-cluster service account; --context
// picks the context; the namespace is -n, else the context's namespace, else "default".
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import type { FlagSpec, ParsedFlags } from "../flags.js";

const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";
export const NO_CONFIGURATION =
  "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable";

/** The client configuration flags every command accepts (`virtctl options` lists them). */
export const clientConfigFlags: FlagSpec[] = [
  {
    name: "kubeconfig",
    kind: "string",
    defaultValue: "",
    usage: "Path to the kubeconfig file to use for CLI requests.",
  },
  { name: "context", kind: "string", defaultValue: "", usage: "The name of the kubeconfig context to use" },
  {
    name: "namespace",
    short: "n",
    kind: "string",
    defaultValue: "",
    usage: "If present, the namespace scope for this CLI request",
  },
];

export interface ClientConfig {
  kubeConfig: KubeConfig;
  /** The API server's base URL. */
  server: string;
  namespace: string;
  /** True when the namespace was given with -n rather than taken from the context. */
  overridden: boolean;
}

export interface Environment {
  KUBECONFIG?: string;
  HOME?: string;
}

export async function loadClientConfig(flags: ParsedFlags, env: Environment): Promise<ClientConfig> {
  // loaded on demand: the library is large, and help or `version --client` never need it
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kubeConfig = loadKubeConfig(
    new KubeConfig(),
    () => new KubeConfig(),
    flags.string("kubeconfig"),
    env,
  );
  const contextName = flags.string("context");
  if (contextName !== "") {
    if (!kubeConfig.getContextObject(contextName)) {
      throw new Error(`context was not found for specified context: ${contextName}`);
    }
    kubeConfig.setCurrentContext(contextName);
  }
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error(NO_CONFIGURATION);
  const flagNamespace = flags.string("namespace");
  const contextNamespace = kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace;
  return {
    kubeConfig,
    server: cluster.server,
    namespace: flagNamespace || contextNamespace || "default",
    overridden: flagNamespace !== "",
  };
}

function loadKubeConfig(
  kubeConfig: KubeConfig,
  newKubeConfig: () => KubeConfig,
  explicitPath: string,
  env: Environment,
): KubeConfig {
  if (explicitPath !== "") {
    if (!existsSync(explicitPath)) throw new Error(`stat ${explicitPath}: no such file or directory`);
    kubeConfig.loadFromFile(explicitPath);
    return kubeConfig;
  }
  // Like client-go, missing files in $KUBECONFIG are skipped and the first file's context wins.
  const listed = (env.KUBECONFIG ?? "").split(delimiter).filter((path) => path !== "" && existsSync(path));
  const homeConfig = env.HOME ? join(env.HOME, ".kube", "config") : undefined;
  const files = listed.length > 0 ? listed : homeConfig && existsSync(homeConfig) ? [homeConfig] : [];
  const [first, ...rest] = files;
  if (first === undefined) {
    if (!existsSync(SERVICE_ACCOUNT_TOKEN)) throw new Error(NO_CONFIGURATION);
    kubeConfig.loadFromCluster();
    return kubeConfig;
  }
  kubeConfig.loadFromFile(first);
  for (const path of rest) {
    const more = newKubeConfig();
    more.loadFromFile(path);
    mergeFirstWins(kubeConfig, more);
  }
  return kubeConfig;
}

/** client-go's merge: an entry named in an earlier file is kept; later files only add names. */
function mergeFirstWins(into: KubeConfig, from: KubeConfig): void {
  for (const cluster of from.getClusters()) if (!into.getCluster(cluster.name)) into.addCluster(cluster);
  for (const user of from.getUsers()) if (!into.getUser(user.name)) into.addUser(user);
  for (const context of from.getContexts())
    if (!into.getContextObject(context.name)) into.addContext(context);
  if (!into.getCurrentContext()) into.setCurrentContext(from.getCurrentContext());
}
