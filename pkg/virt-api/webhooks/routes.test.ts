import { describe, expect, it } from "vitest";
import { ClusterConfig } from "../../virt-config/cluster-config.js";
import {
  VIRT_API_MUTATING_WEBHOOKS,
  VIRT_API_VALIDATING_WEBHOOKS,
} from "../../virt-operator/resource/generate/components/webhooks.js";
import { handleAdmission } from "./handler.js";
import {
  NOT_YET_SERVED_WEBHOOK_ROUTES,
  WEBHOOK_ROUTES,
  kubeVirtServiceAccounts,
  type WebhookContext,
  type WebhookRoute,
} from "./routes.js";

const context: WebhookContext = {
  clusterConfig: () => ClusterConfig.defaults(),
  kubeVirtServiceAccounts: kubeVirtServiceAccounts("kubevirt"),
};

const review = (group: string, resource: string, object: unknown, subResource?: string) => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "u-1",
    resource: { group, version: "v1", resource },
    ...(subResource ? { subResource } : {}),
    operation: "UPDATE",
    object,
  },
});

const route = (routes: readonly WebhookRoute[], path: string): WebhookRoute => {
  const found = routes.find((candidate) => candidate.path === path);
  if (!found) throw new Error(`no route ${path}`);
  return found;
};

describe("webhook routes", () => {
  it("answer every path the operator registers for virt-api", () => {
    const served = new Set([...WEBHOOK_ROUTES, ...NOT_YET_SERVED_WEBHOOK_ROUTES].map((r) => r.path));
    for (const row of [...VIRT_API_VALIDATING_WEBHOOKS, ...VIRT_API_MUTATING_WEBHOOKS])
      expect(served, row.name).toContain(row.path);
  });

  it("deny a kind kubevirt-ts does not serve yet, saying so", () => {
    const pools = route(NOT_YET_SERVED_WEBHOOK_ROUTES, "/virtualmachinepool-validate");
    const answer = handleAdmission(review("pool.kubevirt.io", "virtualmachinepools", {}), pools, context);
    expect(answer.body).toMatchObject({
      response: {
        allowed: false,
        status: {
          code: 501,
          message:
            "kubevirt-ts does not support virtualmachinepools.pool.kubevirt.io yet (webhook virtualmachinepool-validator.kubevirt.io)",
        },
      },
    });
  });
});

describe("the status validator", () => {
  const status = route(WEBHOOK_ROUTES, "/status-validate");
  const vm = (statusValue: unknown) => ({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: { name: "vm1" },
    spec: { template: { spec: { domain: { devices: {} } } } },
    status: statusValue,
  });

  it("admits a VM status that matches the schema", () => {
    const answer = handleAdmission(
      review("kubevirt.io", "virtualmachines", vm({ printableStatus: "Running", ready: true }), "status"),
      status,
      context,
    );
    expect(answer.body).toMatchObject({ response: { allowed: true } });
  });

  it("refuses a status field of the wrong type, naming it", () => {
    const answer = handleAdmission(
      review("kubevirt.io", "virtualmachines", vm({ ready: "yes" }), "status"),
      status,
      context,
    );
    expect(answer.body).toMatchObject({
      response: {
        allowed: false,
        status: { code: 422, details: { causes: [{ field: "status.ready" }] } },
      },
    });
  });

  it("refuses an object without a kind", () => {
    const answer = handleAdmission(review("kubevirt.io", "virtualmachines", { status: {} }), status, context);
    expect(answer.body).toMatchObject({
      response: { allowed: false, status: { message: "could not determine object kind" } },
    });
  });
});
