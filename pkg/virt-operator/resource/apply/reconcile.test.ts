import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR_RESOURCES } from "../../resources.js";
import { FakeCluster } from "../../testing/fake-cluster.js";
import { installStrategyFor, installingKubeVirt, testContext } from "../../testing/reconcile-context.js";
import type { Deployment, Service } from "../generate/components/k8s-types.js";
import type { InstallStrategy } from "../generate/install/strategy.js";
import { reconcileInstall } from "./reconcile.js";

const HASH_ANNOTATION = "kubevirt.io/customizer-identifier";

const kv = installingKubeVirt();

let strategy: InstallStrategy;
beforeAll(() => {
  strategy = installStrategyFor(kv);
});

describe("reconcileInstall with customizeComponents", () => {
  it("installs the customized objects and re-applies them when the customizations change", async () => {
    const cluster = new FakeCluster();
    // The same CR generation throughout: only the customizer identifier tells the objects are outdated.
    const ctx = testContext(cluster, structuredClone(kv));
    const apiDeployment = () =>
      cluster.object<Deployment>(OPERATOR_RESOURCES.deployments, "kubevirt/virt-api")!;
    const apiService = () => cluster.object<Service>(OPERATOR_RESOURCES.services, "kubevirt/virt-api")!;

    ctx.kv.spec.customizeComponents = { flags: { api: { v: "4" } } };
    await reconcileInstall(ctx, strategy);
    expect(apiDeployment().spec.template.spec?.containers[0]?.command).toEqual(["virt-api", "--v", "4"]);
    const firstHash = apiService().metadata?.annotations?.[HASH_ANNOTATION];
    expect(firstHash).toBe(apiDeployment().metadata?.annotations?.[HASH_ANNOTATION]);
    cluster.takeWrites();

    await reconcileInstall(ctx, strategy);
    expect(cluster.takeWrites().filter((w) => /deployments|services/.test(w))).toEqual([]);

    ctx.kv.spec.customizeComponents = {
      flags: { api: { v: "5" } },
      patches: [
        {
          resourceType: "Service",
          resourceName: "virt-api",
          type: "merge",
          patch: '{"metadata":{"labels":{"l":"v"}}}',
        },
      ],
    };
    await reconcileInstall(ctx, strategy);
    const writes = cluster.takeWrites();
    expect(writes).toContain("patch deployments kubevirt/virt-api");
    expect(writes).toContain("patch services kubevirt/virt-api");
    expect(apiDeployment().spec.template.spec?.containers[0]?.command).toEqual(["virt-api", "--v", "5"]);
    expect(apiService().metadata?.labels?.["l"]).toBe("v");
    expect(apiService().metadata?.annotations?.[HASH_ANNOTATION]).not.toBe(firstHash);
    // The strategy the controller keeps is left as generated.
    expect(strategy.apiDeployments[0]?.spec.template.spec?.containers[0]?.command).toEqual(["virt-api"]);
  });

  it("keeps virt-api's replicas from a JSON patch instead of counting nodes", async () => {
    const cluster = new FakeCluster();
    const ctx = testContext(cluster, structuredClone(kv));
    ctx.kv.spec.customizeComponents = {
      patches: [
        {
          resourceType: "Deployment",
          resourceName: "virt-api",
          type: "json",
          patch: '[{"op":"replace","path":"/spec/replicas","value":4}]',
        },
      ],
    };
    await reconcileInstall(ctx, strategy);
    expect(
      cluster.object<Deployment>(OPERATOR_RESOURCES.deployments, "kubevirt/virt-api")?.spec.replicas,
    ).toBe(4);
  });

  it("fails the pass on a patch that does not apply", async () => {
    const ctx = testContext(new FakeCluster(), structuredClone(kv));
    ctx.kv.spec.customizeComponents = {
      patches: [
        {
          resourceType: "Deployment",
          resourceName: "virt-api",
          type: "json",
          patch: '[{"op":"remove","path":"/nope"}]',
        },
      ],
    };
    await expect(reconcileInstall(ctx, strategy)).rejects.toThrow("/nope");
  });
});
