import { describe, expect, it } from "vitest";
import type { PolicyRule } from "../components/k8s-types.js";
import { allClusterRbac } from "./cluster.js";
import { apiServerRbac, controllerRbac, handlerRbac } from "./components.js";
import { installedRbac, operatorRbac } from "./operator.js";

/** Whether `rules` grant `verb` on group/resource (wildcards included). */
function grants(rules: readonly PolicyRule[], group: string, resource: string, verb: string): boolean {
  return rules.some(
    (r) =>
      !r.resourceNames &&
      (r.apiGroups ?? []).some((g) => g === group || g === "*") &&
      (r.resources ?? []).some((res) => res === resource || res === "*") &&
      r.verbs.some((v) => v === verb || v === "*"),
  );
}

const clusterRole = (name: string) => {
  const role = allClusterRbac().clusterRoles.find((r) => r.metadata?.name === name);
  if (!role) throw new Error(`no cluster role ${name}`);
  return role;
};

describe("RBAC of the installed components", () => {
  it("gives each component its own ServiceAccount, as upstream names them", () => {
    const accounts = installedRbac("kubevirt").serviceAccounts.map(
      (sa) => `${sa.metadata?.namespace}/${sa.metadata?.name}`,
    );
    expect(accounts).toEqual([
      "kubevirt/kubevirt-apiserver",
      "kubevirt/kubevirt-controller",
      "kubevirt/kubevirt-handler",
    ]);
  });

  it.each([
    ["kubevirt.io:admin", "admin"],
    ["kubevirt.io:edit", "edit"],
    ["kubevirt.io:view", "view"],
  ])("aggregates %s into the %s role", (name, into) => {
    expect(clusterRole(name).metadata?.labels).toMatchObject({
      [`rbac.authorization.k8s.io/aggregate-to-${into}`]: "true",
    });
  });

  // One row per access rule users rely on: role, group, resource, verb, granted.
  it.each<[string, string, string, string, boolean]>([
    ["kubevirt.io:view", "kubevirt.io", "virtualmachines", "list", true],
    ["kubevirt.io:view", "kubevirt.io", "virtualmachines", "create", false],
    ["kubevirt.io:view", "subresources.kubevirt.io", "virtualmachineinstances/console", "get", false],
    ["kubevirt.io:view", "subresources.kubevirt.io", "virtualmachines/start", "update", false],
    ["kubevirt.io:edit", "subresources.kubevirt.io", "virtualmachineinstances/console", "get", true],
    ["kubevirt.io:edit", "subresources.kubevirt.io", "virtualmachines/start", "update", true],
    ["kubevirt.io:edit", "kubevirt.io", "virtualmachines", "deletecollection", false],
    ["kubevirt.io:edit", "subresources.kubevirt.io", "virtualmachineinstances/vnc/screenshot", "get", false],
    ["kubevirt.io:admin", "kubevirt.io", "virtualmachines", "deletecollection", true],
    ["kubevirt.io:admin", "subresources.kubevirt.io", "virtualmachineinstances/vnc/screenshot", "get", true],
    ["kubevirt.io:admin", "kubevirt.io", "virtualmachineinstancemigrations", "create", false],
    ["kubevirt.io:migrate", "subresources.kubevirt.io", "virtualmachines/migrate", "update", true],
    ["kubevirt.io:default", "subresources.kubevirt.io", "version", "get", true],
  ])("%s: %s %s %s → %s", (role, group, resource, verb, granted) => {
    expect(grants(clusterRole(role).rules, group, resource, verb)).toBe(granted);
  });

  it("binds kubevirt.io:default to every authenticated user", () => {
    const binding = allClusterRbac().clusterRoleBindings.find(
      (b) => b.metadata?.name === "kubevirt.io:default",
    );
    expect(binding?.subjects).toEqual([
      { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "system:authenticated" },
    ]);
  });

  it("keeps components to least privilege", () => {
    const handler = handlerRbac("kubevirt").clusterRoles[0]!.rules;
    expect(grants(handler, "", "secrets", "get")).toBe(false);
    expect(grants(handler, "kubevirt.io", "virtualmachineinstances", "update")).toBe(true);
    expect(grants(handler, "kubevirt.io", "virtualmachineinstances", "delete")).toBe(false);
    const api = apiServerRbac("kubevirt").clusterRoles[0]!.rules;
    expect(grants(api, "", "pods", "create")).toBe(false);
    expect(grants(controllerRbac("kubevirt").clusterRoles[0]!.rules, "", "pods", "create")).toBe(true);
  });

  it.each<[string, string, string]>([
    ["pool.kubevirt.io", "virtualmachinepools", "watch"],
    ["pool.kubevirt.io", "virtualmachinepools", "patch"],
    ["pool.kubevirt.io", "virtualmachinepools/status", "update"],
    ["apps", "controllerrevisions", "create"],
    ["apps", "controllerrevisions", "delete"],
    ["kubevirt.io", "virtualmachines", "update"],
    ["kubevirt.io", "virtualmachineinstances", "patch"],
  ])("lets virt-controller's pool controller %s/%s: %s", (group, resource, verb) => {
    expect(grants(controllerRbac("kubevirt").clusterRoles[0]!.rules, group, resource, verb)).toBe(true);
  });

  it("lets virt-api delegate authentication and authorization", () => {
    const bindings = apiServerRbac("kubevirt").clusterRoleBindings;
    expect(bindings.find((b) => b.roleRef.name === "system:auth-delegator")?.subjects).toEqual([
      { kind: "ServiceAccount", namespace: "kubevirt", name: "kubevirt-apiserver" },
    ]);
  });
});

describe("the operator's own RBAC", () => {
  const operator = operatorRbac("kubevirt");

  it("holds every rule it grants, since Kubernetes forbids granting more than one holds", () => {
    const clusterRules = operator.clusterRoles[0]!.rules;
    for (const rule of installedRbac("kubevirt").clusterRoles.flatMap((r) => r.rules))
      expect(clusterRules).toContainEqual(rule);
    const roleRules = operator.roles[0]!.rules;
    for (const rule of installedRbac("kubevirt").roles.flatMap((r) => r.rules))
      expect(roleRules).toContainEqual(rule);
  });

  it("may manage what it installs and read the KubeVirt CR", () => {
    const rules = operator.clusterRoles[0]!.rules;
    for (const [group, resource] of [
      ["apiextensions.k8s.io", "customresourcedefinitions"],
      ["admissionregistration.k8s.io", "validatingwebhookconfigurations"],
      ["apiregistration.k8s.io", "apiservices"],
      ["apps", "daemonsets"],
      ["rbac.authorization.k8s.io", "clusterroles"],
    ] as const) {
      expect(grants(rules, group, resource, "create"), resource).toBe(true);
    }
    expect(grants(rules, "kubevirt.io", "kubevirts", "patch")).toBe(true);
  });

  it("binds its roles to the kubevirt-operator ServiceAccount", () => {
    const subject = { kind: "ServiceAccount", namespace: "kubevirt", name: "kubevirt-operator" };
    expect(operator.clusterRoleBindings[0]?.subjects).toEqual([subject]);
    expect(operator.roleBindings[0]?.subjects).toEqual([subject]);
  });
});
