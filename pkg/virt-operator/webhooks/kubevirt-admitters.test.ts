import { describe, expect, it } from "vitest";
import type { KubeVirtCR } from "../cluster.js";
import { WATCHED_RESOURCES } from "../resources.js";
import { FakeCluster } from "../testing/fake-cluster.js";
import type { AdmissionRequest } from "./admission-review.js";
import {
  kubeVirtCreateAdmitter,
  kubeVirtDeletionAdmitter,
  kubeVirtUpdateAdmitter,
  uninstallErrorMessage,
} from "./kubevirt-admitters.js";

const kv = (spec: KubeVirtCR["spec"], phase?: string): KubeVirtCR => ({
  apiVersion: "kubevirt.io/v1",
  kind: "KubeVirt",
  metadata: { name: "kubevirt", namespace: "kubevirt" },
  spec,
  ...(phase ? { status: { phase } } : {}),
});

const request = (operation: AdmissionRequest["operation"], object?: unknown): AdmissionRequest => ({
  uid: "u1",
  operation,
  name: "kubevirt",
  namespace: "kubevirt",
  object,
});

const workload = (name: string) => ({ metadata: { name, namespace: "default" } });

describe("KubeVirt deletion admitter", () => {
  // One row per situation: strategy, phase, workloads present, expected refusal message (undefined: allowed).
  it.each<
    [
      string,
      string | undefined,
      string | undefined,
      Array<keyof typeof WATCHED_RESOURCES>,
      string | undefined,
    ]
  >([
    ["no strategy", undefined, "Deployed", ["virtualMachineInstances"], undefined],
    ["RemoveWorkloads", "RemoveWorkloads", "Deployed", ["virtualMachineInstances"], undefined],
    [
      "blocking but not deployed",
      "BlockUninstallIfWorkloadsExist",
      "Deploying",
      ["virtualMachineInstances"],
      undefined,
    ],
    ["blocking without workloads", "BlockUninstallIfWorkloadsExist", "Deployed", [], undefined],
    [
      "blocking with a VMI",
      "BlockUninstallIfWorkloadsExist",
      "Deployed",
      ["virtualMachineInstances"],
      uninstallErrorMessage("Virtual Machine Instances"),
    ],
    [
      "blocking with a VM",
      "BlockUninstallIfWorkloadsExist",
      "Deployed",
      ["virtualMachines"],
      uninstallErrorMessage("Virtual Machines"),
    ],
    [
      "blocking with a replica set",
      "BlockUninstallIfWorkloadsExist",
      "Deployed",
      ["virtualMachineInstanceReplicaSets"],
      uninstallErrorMessage("Virtual Machine Instance Replica Sets"),
    ],
  ])("%s", async (_name, strategy, phase, workloads, refusal) => {
    const cluster = new FakeCluster();
    cluster.seed(WATCHED_RESOURCES.kubevirts, kv(strategy ? { uninstallStrategy: strategy } : {}, phase));
    for (const kind of workloads) cluster.seed(WATCHED_RESOURCES[kind], workload("w"));
    const response = await kubeVirtDeletionAdmitter(cluster)(request("DELETE"));
    if (refusal === undefined) expect(response).toEqual({ allowed: true });
    else expect(response).toEqual({ allowed: false, result: { message: refusal, code: 400 } });
  });

  it("words the refusal as upstream", () => {
    expect(uninstallErrorMessage("Virtual Machines")).toBe(
      "Rejecting the uninstall request, since there are still Virtual Machines present. Either delete all KubeVirt related workloads or change the uninstall strategy before uninstalling KubeVirt.",
    );
  });
});

describe("KubeVirt create admitter", () => {
  it("allows the first KubeVirt CR and refuses a second one", async () => {
    const cluster = new FakeCluster();
    const admit = kubeVirtCreateAdmitter(cluster);
    expect(await admit(request("CREATE", kv({})))).toEqual({ allowed: true });
    cluster.seed(WATCHED_RESOURCES.kubevirts, kv({}));
    expect(
      await admit(request("CREATE", { ...kv({}), metadata: { name: "second", namespace: "kubevirt" } })),
    ).toEqual({
      allowed: false,
      result: { message: "Kubevirt is already created", code: 400 },
    });
  });

  it("refuses an object that does not match the schema, naming the field", async () => {
    const response = await kubeVirtCreateAdmitter(new FakeCluster())(
      request("CREATE", kv({ imagePullPolicy: "Sometimes" as "Always" })),
    );
    expect(response.allowed).toBe(false);
    expect(response.result?.details?.causes?.[0]?.field).toBe("spec.imagePullPolicy");
  });
});

describe("KubeVirt update admitter", () => {
  it("allows a valid update and refuses a malformed one", async () => {
    const admit = kubeVirtUpdateAdmitter();
    expect(await admit(request("UPDATE", kv({ imagePullPolicy: "Always" })))).toEqual({ allowed: true });
    expect((await admit(request("UPDATE", { ...kv({}), spec: "x" }))).allowed).toBe(false);
  });

  it("refuses customizeComponents patches that are not JSON, one cause each, in upstream's words", async () => {
    const patch = (text: string) => ({
      resourceName: "virt-api",
      resourceType: "Deployment",
      type: "json",
      patch: text,
    });
    const spec = { customizeComponents: { patches: [patch("{nope"), patch("[]"), patch('{"a":')] } };
    const response = await kubeVirtUpdateAdmitter()(request("UPDATE", kv(spec)));
    const causes = [
      { type: "FieldValueNotSupported", message: 'patch "{nope" is not valid JSON' },
      { type: "FieldValueNotSupported", message: 'patch "{\\"a\\":" is not valid JSON' },
    ];
    expect(response).toEqual({
      allowed: false,
      result: {
        message: causes.map((c) => c.message).join(", "),
        code: 422,
        reason: "Invalid",
        details: { causes },
      },
    });
  });
});
