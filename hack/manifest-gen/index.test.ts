import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { KubeVirtSchema } from "../../pkg/api/generated/v1.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";
import { repoRoot } from "../all-generators.js";
import type { GeneratedFile } from "../generated-file.js";
import {
  CR_MANIFEST,
  DEFAULT_REGISTRY,
  DEFAULT_TAG,
  OPERATOR_MANIFEST,
  generateReleaseManifests,
} from "./index.js";

type Doc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [k: string]: unknown;
};

function documents(files: GeneratedFile[], path: string): Doc[] {
  const file = files.find((f) => f.path === path);
  if (!file) throw new Error(`no ${path}`);
  return parseAllDocuments(file.content).map((d) => d.toJS() as Doc);
}

let swagger: unknown;
beforeAll(() => {
  swagger = loadSwagger();
});

describe("release manifests", () => {
  it("are committed exactly as generated with the default registry and tag", () => {
    const files = generateReleaseManifests({ registry: DEFAULT_REGISTRY, tag: DEFAULT_TAG, swagger });
    for (const file of files)
      expect(readFileSync(join(repoRoot, file.path), "utf8"), file.path).toBe(file.content);
  });

  it("hold the namespace, KubeVirt CRD, priority class, operator RBAC and Deployment, in that order", () => {
    const docs = documents(
      generateReleaseManifests({ registry: "r.example", tag: "v9", swagger }),
      OPERATOR_MANIFEST,
    );
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      "Namespace/kubevirt",
      "CustomResourceDefinition/kubevirts.kubevirt.io",
      "PriorityClass/kubevirt-cluster-critical",
      "ClusterRole/kubevirt.io:operator",
      "ServiceAccount/kubevirt-operator",
      "Role/kubevirt-operator",
      "RoleBinding/kubevirt-operator-rolebinding",
      "ClusterRole/kubevirt-operator",
      "ClusterRoleBinding/kubevirt-operator",
      "Deployment/virt-operator",
    ]);
    expect(docs[0]?.metadata).toMatchObject({
      labels: { "pod-security.kubernetes.io/enforce": "privileged" },
    });
  });

  it("name the operator image <registry>/virt-operator:<tag> and run upstream's command", () => {
    const docs = documents(
      generateReleaseManifests({ registry: "r.example", tag: "v9", swagger }),
      OPERATOR_MANIFEST,
    );
    const deployment = docs.at(-1) as Doc & {
      spec: { replicas: number; template: { spec: { containers: Array<Record<string, unknown>> } } };
    };
    expect(deployment.spec.replicas).toBe(2);
    const container = deployment.spec.template.spec.containers[0]!;
    expect(container).toMatchObject({
      image: "r.example/virt-operator:v9",
      command: ["virt-operator"],
      args: ["--port", "8443", "-v", "2"],
    });
    expect(container["env"]).toContainEqual({
      name: "VIRT_OPERATOR_IMAGE",
      value: "r.example/virt-operator:v9",
    });
    expect(container["env"]).toContainEqual({ name: "KUBEVIRT_VERSION", value: "v9" });
  });

  it("give the KubeVirt CR upstream's shape, with useEmulation only when asked", () => {
    const plain = documents(generateReleaseManifests({ registry: "r", tag: "t", swagger }), CR_MANIFEST);
    const emulated = documents(
      generateReleaseManifests({ registry: "r", tag: "t", swagger, useEmulation: true }),
      CR_MANIFEST,
    );
    for (const [docs, emulation] of [
      [plain, undefined],
      [emulated, true],
    ] as const) {
      expect(docs).toHaveLength(1);
      const cr = KubeVirtSchema.parse(docs[0]);
      expect(cr.metadata).toMatchObject({ name: "kubevirt", namespace: "kubevirt" });
      expect(cr.spec.imagePullPolicy).toBe("IfNotPresent");
      expect(cr.spec.configuration?.developerConfiguration?.featureGates).toEqual([]);
      expect(cr.spec.configuration?.developerConfiguration?.useEmulation).toBe(emulation);
    }
  });
});
