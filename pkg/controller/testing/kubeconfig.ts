import { KubeConfig } from "@kubernetes/client-node";

/** A KubeConfig pointing at a plain-HTTP test server on this machine. */
export function localKubeConfig(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "local", server, skipTLSVerify: true }],
    users: [{ name: "tester", token: "test-token" }],
    contexts: [{ name: "local", cluster: "local", user: "tester" }],
    currentContext: "local",
  });
  return kc;
}
