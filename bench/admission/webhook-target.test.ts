import { describe, expect, it } from "vitest";
import { BenchError } from "../common/bench-error.js";
import {
  findWebhook,
  pickPod,
  podPort,
  serverName,
  type Pod,
  type WebhookConfiguration,
} from "./webhook-target.js";

const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const service = (path: string) => ({ name: "virt-api", namespace: "kubevirt", path, port: 443 });

const validator: WebhookConfiguration = {
  metadata: { name: "virt-api-validator" },
  webhooks: [
    {
      name: "virtualmachineinstances-create-validator.kubevirt.io",
      clientConfig: { service: service("/virtualmachineinstances-validate-create"), caBundle: btoa(CA) },
      rules: [{ operations: ["CREATE"], apiGroups: ["kubevirt.io"], resources: ["virtualmachineinstances"] }],
    },
    {
      name: "virtualmachine-validator.kubevirt.io",
      clientConfig: { service: service("/virtualmachines-validate"), caBundle: btoa(CA) },
      rules: [
        { operations: ["CREATE", "UPDATE"], apiGroups: ["kubevirt.io"], resources: ["virtualmachines"] },
      ],
      timeoutSeconds: 5,
    },
  ],
};

const pod = (name: string, phase: string, ready: boolean, extra: Partial<Pod> = {}): Pod => ({
  metadata: { name },
  spec: { containers: [{ ports: [{ name: "virt-api", containerPort: 8443 }] }] },
  status: { phase, podIP: "10.244.1.6", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  ...extra,
});

describe("webhook target", () => {
  it("finds the webhook by its rules, with its path, CA, timeout and the name to verify", () => {
    const endpoint = findWebhook(validator, "kubevirt.io", "virtualmachines", "CREATE");
    expect(endpoint).toEqual({
      name: "virtualmachine-validator.kubevirt.io",
      service: { name: "virt-api", namespace: "kubevirt", port: 443 },
      path: "/virtualmachines-validate",
      ca: CA,
      timeoutMs: 5000,
    });
    expect(serverName(endpoint)).toBe("virt-api.kubevirt.svc");
    expect(findWebhook(validator, "kubevirt.io", "virtualmachineinstances", "CREATE").timeoutMs).toBe(10_000);
  });

  it("says which webhook is missing or unusable", () => {
    expect(() => findWebhook(validator, "kubevirt.io", "virtualmachines", "DELETE")).toThrow(
      /virt-api-validator has no webhook for DELETE of kubevirt.io\/virtualmachines/,
    );
    const noCa: WebhookConfiguration = {
      webhooks: [{ ...validator.webhooks![1]!, clientConfig: { service: service("/x") } }],
    };
    expect(() => findWebhook(noCa, "kubevirt.io", "virtualmachines", "CREATE")).toThrow(/no caBundle/);
  });

  it("takes wildcards in rules", () => {
    const any: WebhookConfiguration = {
      webhooks: [
        {
          name: "any",
          clientConfig: { service: service("/any"), caBundle: btoa(CA) },
          rules: [{ operations: ["*"], apiGroups: ["*"], resources: ["*"] }],
        },
      ],
    };
    expect(findWebhook(any, "kubevirt.io", "virtualmachines", "CREATE").path).toBe("/any");
  });

  it("picks the first Ready pod by name, or the one named", () => {
    const pods = [
      pod("virt-api-c", "Running", true),
      pod("virt-api-a", "Pending", false),
      pod("virt-api-b", "Running", true),
      pod("virt-api-0", "Running", true, {
        metadata: { name: "virt-api-0", deletionTimestamp: "2026-01-01T00:00:00Z" },
      }),
    ];
    expect(pickPod(pods, undefined).metadata.name).toBe("virt-api-b");
    expect(pickPod(pods, "virt-api-c").metadata.name).toBe("virt-api-c");
    expect(() => pickPod(pods, "virt-api-a")).toThrow(BenchError);
    expect(() => pickPod([], undefined)).toThrow(/virt-api pods: none/);
  });

  it("maps the Service's port to the pod's, by number or by name", () => {
    const p = pod("virt-api-a", "Running", true);
    expect(podPort({ spec: { ports: [{ port: 443, targetPort: 8443 }] } }, 443, p)).toBe(8443);
    expect(podPort({ spec: { ports: [{ port: 443, targetPort: "virt-api" }] } }, 443, p)).toBe(8443);
    expect(podPort({ spec: { ports: [{ port: 443 }] } }, 443, p)).toBe(443);
    expect(() => podPort({ spec: { ports: [{ port: 443, targetPort: "metrics" }] } }, 443, p)).toThrow(
      /no port named/,
    );
    expect(() => podPort({ spec: { ports: [] } }, 443, p)).toThrow(/no port 443/);
  });
});
