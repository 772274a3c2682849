import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFlags } from "../flags.js";
import type { ScriptedApiServer as Server } from "../testing/scripted-apiserver.js";
import { ScriptedApiServer, writeKubeconfig } from "../testing/scripted-apiserver.js";
import type { Environment } from "./clientconfig.js";
import { clientConfigFlags, loadClientConfig } from "./clientconfig.js";

let server: Server;
let scratch: ReturnType<typeof writeKubeconfig>;
let home: string;
let extraConfig: string;

beforeAll(async () => {
  server = await ScriptedApiServer.start();
  scratch = writeKubeconfig(server);
  home = join(scratch.dir, "home");
  mkdirSync(join(home, ".kube"), { recursive: true });
  writeFileSync(join(home, ".kube", "config"), server.kubeconfigYaml());
  extraConfig = join(scratch.dir, "extra");
  writeFileSync(
    extraConfig,
    `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: "https://127.0.0.1:1"}
users: []
contexts:
- name: extra
  context: {cluster: fake, user: tester, namespace: from-extra}
current-context: extra
`,
  );
});
afterAll(async () => {
  scratch.remove();
  await server.close();
});

const load = (argv: string[], env: Environment) => loadClientConfig(parseFlags(argv, clientConfigFlags), env);

describe("kubeconfig and namespace resolution", () => {
  it.each([
    {
      name: "--kubeconfig",
      argv: () => ["--kubeconfig", scratch.path],
      env: () => ({}),
      namespace: "from-context",
    },
    {
      name: "$KUBECONFIG skips missing files",
      argv: () => [],
      env: () => ({ KUBECONFIG: `${join(scratch.dir, "missing")}:${scratch.path}` }),
      namespace: "from-context",
    },
    { name: "~/.kube/config", argv: () => [], env: () => ({ HOME: home }), namespace: "from-context" },
    {
      name: "--kubeconfig wins over $KUBECONFIG",
      argv: () => [`--kubeconfig=${scratch.path}`],
      env: () => ({ KUBECONFIG: join(scratch.dir, "missing") }),
      namespace: "from-context",
    },
    {
      name: "a context without namespace",
      argv: () => ["--context", "bare"],
      env: () => ({ HOME: home }),
      namespace: "default",
    },
    {
      name: "-n overrides the context",
      argv: () => ["-n", "mine", "--context=main"],
      env: () => ({ HOME: home }),
      namespace: "mine",
    },
    {
      name: "$KUBECONFIG files are merged; on a name in both, the first file wins",
      argv: () => [],
      env: () => ({ KUBECONFIG: `${scratch.path}:${extraConfig}` }),
      namespace: "from-context",
    },
    {
      name: "a context from a later $KUBECONFIG file",
      argv: () => ["--context", "extra"],
      env: () => ({ KUBECONFIG: `${scratch.path}:${extraConfig}` }),
      namespace: "from-extra",
    },
  ])("$name", async ({ argv, env, namespace }) => {
    const config = await load(argv(), env());
    expect(config.namespace).toBe(namespace);
    expect(config.server).toBe(server.url);
    expect(config.overridden).toBe(argv().includes("-n"));
  });

  it.each([
    {
      name: "an unknown context",
      argv: () => ["--context", "nope"],
      env: () => ({ HOME: home }),
      message: "context was not found for specified context: nope",
    },
    {
      name: "a missing --kubeconfig file",
      argv: () => ["--kubeconfig", "/nonexistent/config"],
      env: () => ({ HOME: home }),
      message: "stat /nonexistent/config: no such file or directory",
    },
  ])("refuses $name", async ({ argv, env, message }) => {
    await expect(load(argv(), env())).rejects.toThrow(message);
  });

  it("without any configuration, says so as client-go does", async (context) => {
    if (existsSync("/var/run/secrets/kubernetes.io/serviceaccount/token")) {
      context.skip("this machine has an in-cluster service account, which would be used");
    }
    await expect(load([], { HOME: join(scratch.dir, "nowhere") })).rejects.toThrow(
      "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable",
    );
  });
});
