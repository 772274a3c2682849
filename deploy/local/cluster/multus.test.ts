import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  multusClusterRole,
  multusClusterRoleBinding,
  networkAttachmentDefinitionCRD,
  renderMultusAPI,
} from "./multus.js";
import { clientIdentities } from "./pki.js";

describe("the NetworkAttachmentDefinition CRD", () => {
  const crd = networkAttachmentDefinitionCRD();

  it("is upstream's: k8s.cni.cncf.io/v1, namespaced, net-attach-def, spec.config a string", () => {
    expect(crd.metadata?.name).toBe("network-attachment-definitions.k8s.cni.cncf.io");
    expect(crd.spec.group).toBe("k8s.cni.cncf.io");
    expect(crd.spec.scope).toBe("Namespaced");
    expect(crd.spec.names).toEqual({
      plural: "network-attachment-definitions",
      singular: "network-attachment-definition",
      kind: "NetworkAttachmentDefinition",
      shortNames: ["net-attach-def"],
    });
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([["v1", true, true]]);
    const schema = crd.spec.versions[0]?.schema?.openAPIV3Schema;
    expect(schema?.properties?.["spec"]?.properties?.["config"]?.type).toBe("string");
    expect(Object.keys(schema?.properties ?? {})).toEqual(["apiVersion", "kind", "metadata", "spec"]);
  });
});

describe("multus's RBAC", () => {
  it("is upstream's ClusterRole for the thin plugin", () => {
    expect(multusClusterRole().rules).toEqual([
      { apiGroups: ["k8s.cni.cncf.io"], resources: ["*"], verbs: ["*"] },
      { apiGroups: [""], resources: ["pods", "pods/status"], verbs: ["get", "update"] },
      { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch", "update"] },
    ]);
  });

  it("binds it to the user of multus's client certificate", () => {
    const identity = clientIdentities.find((candidate) => candidate.name === "multus");
    expect(identity).toBeDefined();
    expect(multusClusterRoleBinding().subjects).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: identity?.commonName },
    ]);
    expect(identity?.organizations ?? []).not.toContain("system:masters");
  });

  it("renders the three objects as one manifest", () => {
    const kinds = parseAllDocuments(renderMultusAPI()).map((doc) => (doc.toJS() as { kind: string }).kind);
    expect(kinds).toEqual(["CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"]);
  });
});
