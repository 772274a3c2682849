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

  it("deny a kind kubevirt-ts does not serve yet, saying so", async () => {
    const snapshots = route(NOT_YET_SERVED_WEBHOOK_ROUTES, "/virtualmachinesnapshots-validate");
    const answer = await handleAdmission(
      review("snapshot.kubevirt.io", "virtualmachinesnapshots", {}),
      snapshots,
      context,
    );
    expect(answer.body).toMatchObject({
      response: {
        allowed: false,
        status: {
          code: 501,
          message:
            "kubevirt-ts does not support virtualmachinesnapshots.snapshot.kubevirt.io yet (webhook virtualmachinesnapshot-validator.snapshot.kubevirt.io)",
        },
      },
    });
  });
});

describe("the VMI mutator with presets", () => {
  const mutator = route(WEBHOOK_ROUTES, "/virtualmachineinstances-mutate");
  const vmi = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "v", namespace: "ns1", labels: { size: "small" } },
    spec: { domain: { devices: {} } },
  };
  const create = (object: unknown) => ({
    ...review("kubevirt.io", "virtualmachineinstances", object),
    request: { ...review("kubevirt.io", "virtualmachineinstances", object).request, operation: "CREATE" },
  });

  it("lists the presets of the VMI's namespace on creation and applies the matching ones", async () => {
    const namespaces: string[] = [];
    const answer = await handleAdmission(create(vmi), mutator, {
      ...context,
      presets: (namespace) => {
        namespaces.push(namespace);
        return Promise.resolve([
          {
            metadata: { name: "small" },
            spec: {
              selector: { matchLabels: { size: "small" } },
              domain: { devices: {}, cpu: { cores: 3 } },
            },
          },
        ]);
      },
    });
    expect(namespaces).toEqual(["ns1"]);
    const response = (answer.body as { response: { allowed: boolean; patch: string; warnings: string[] } })
      .response;
    expect(response.allowed).toBe(true);
    const patch = JSON.parse(Buffer.from(response.patch, "base64").toString()) as {
      path: string;
      value: { domain?: { cpu?: { cores?: number } }; annotations?: Record<string, string> };
    }[];
    expect(patch.find((op) => op.path === "/spec")?.value.domain?.cpu?.cores).toBe(3);
    expect(patch.find((op) => op.path === "/metadata")?.value.annotations).toMatchObject({
      "virtualmachinepreset.kubevirt.io/small": "kubevirt.io/v1",
    });
    expect(response.warnings).toEqual([
      "kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2.",
    ]);
  });

  it("refuses the VMI with 422 when the presets cannot be read", async () => {
    const answer = await handleAdmission(create(vmi), mutator, {
      ...context,
      presets: () => Promise.reject(new Error("forbidden")),
    });
    expect(answer.body).toMatchObject({
      response: { allowed: false, status: { code: 422, message: "forbidden" } },
    });
  });
});

describe("the VMI preset validator", () => {
  const presets = route(WEBHOOK_ROUTES, "/vmipreset-validate");

  it("is served, not answered as unsupported", () => {
    expect(NOT_YET_SERVED_WEBHOOK_ROUTES.map((r) => r.path)).not.toContain("/vmipreset-validate");
  });

  it("answers with upstream's preset rules", async () => {
    const preset = (domain: unknown) => ({
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachineInstancePreset",
      metadata: { name: "small" },
      spec: { selector: { matchLabels: { size: "small" } }, domain },
    });
    const good = await handleAdmission(
      review("kubevirt.io", "virtualmachineinstancepresets", preset({ devices: {} })),
      presets,
      context,
    );
    expect(good.body).toMatchObject({ response: { allowed: true } });
    const bad = await handleAdmission(
      review("kubevirt.io", "virtualmachineinstancepresets", preset(undefined)),
      presets,
      context,
    );
    expect(bad.body).toMatchObject({ response: { allowed: false, status: { message: "missing domain." } } });
  });
});

describe("the VM pool validator", () => {
  const pools = route(WEBHOOK_ROUTES, "/virtualmachinepool-validate");

  it("is served, not answered as unsupported", () => {
    expect(NOT_YET_SERVED_WEBHOOK_ROUTES.map((r) => r.path)).not.toContain("/virtualmachinepool-validate");
  });

  it("answers with upstream's pool rules", async () => {
    const pool = {
      apiVersion: "pool.kubevirt.io/v1beta1",
      kind: "VirtualMachinePool",
      metadata: { name: "p" },
      spec: {
        selector: { matchLabels: { app: "p" } },
        virtualMachineTemplate: {
          metadata: { labels: { app: "other" } },
          spec: { runStrategy: "Always", template: { spec: { domain: { devices: {} } } } },
        },
      },
    };
    const answer = await handleAdmission(
      {
        ...review("pool.kubevirt.io", "virtualmachinepools", pool),
        request: { ...review("pool.kubevirt.io", "virtualmachinepools", pool).request, operation: "CREATE" },
      },
      pools,
      context,
    );
    expect(answer.body).toMatchObject({
      response: { allowed: false, status: { code: 422, message: "selector does not match labels." } },
    });
  });
});

describe("the eviction interceptor", () => {
  const eviction = route(WEBHOOK_ROUTES, "/pod-eviction-validate");
  const launcher = {
    metadata: { labels: { "kubevirt.io": "virt-launcher" }, annotations: { "kubevirt.io/domain": "vmi" } },
    spec: { nodeName: "node02" },
  };
  const vmi = (evictionStrategy: string) => ({
    metadata: { name: "vmi", namespace: "default" },
    spec: { domain: { devices: {} }, evictionStrategy },
    status: { nodeName: "node02", conditions: [{ type: "LiveMigratable", status: "True" }] },
  });
  const withClient = (strategy: string): WebhookContext => ({
    ...context,
    podEvictionClient: {
      getPod: async () => launcher,
      getVMI: async () => vmi(strategy),
      patchVMI: async () => undefined,
    },
  });
  const evict = (webhooks: WebhookContext) =>
    handleAdmission(
      {
        ...review("", "pods", { kind: "Eviction" }, "eviction"),
        request: {
          ...review("", "pods", {}).request,
          operation: "CREATE",
          subResource: "eviction",
          namespace: "default",
          name: "virt-launcher-vmi-x",
        },
      },
      eviction,
      webhooks,
    );

  it("is served, not answered as unsupported", () => {
    expect(NOT_YET_SERVED_WEBHOOK_ROUTES.map((r) => r.path)).not.toContain("/pod-eviction-validate");
  });

  it.each([
    ["None", true, undefined],
    ["LiveMigrate", false, 429],
  ])("answers an eviction of a launcher with strategy %s", async (strategy, allowed, code) => {
    const answer = await evict(withClient(strategy));
    expect(answer.code === 200 && answer.body.response.allowed).toBe(allowed);
    expect(answer.code === 200 && answer.body.response.status?.code).toBe(code);
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

  it("admits a VM status that matches the schema", async () => {
    const answer = await handleAdmission(
      review("kubevirt.io", "virtualmachines", vm({ printableStatus: "Running", ready: true }), "status"),
      status,
      context,
    );
    expect(answer.body).toMatchObject({ response: { allowed: true } });
  });

  it("refuses a status field of the wrong type, naming it", async () => {
    const answer = await handleAdmission(
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

  it("refuses an object without a kind", async () => {
    const answer = await handleAdmission(
      review("kubevirt.io", "virtualmachines", { status: {} }),
      status,
      context,
    );
    expect(answer.body).toMatchObject({
      response: { allowed: false, status: { message: "could not determine object kind" } },
    });
  });
});

describe("the migration webhooks", () => {
  const MIGRATION_PATHS = [
    "/migration-mutate-create",
    "/migration-validate-create",
    "/migration-validate-update",
  ];
  const migration = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceMigration",
    metadata: { generateName: "kubevirt-migrate-vm-", namespace: "default" },
    spec: { vmiName: "testvmi" },
  };
  const createReview = (object: unknown) => ({
    ...review("kubevirt.io", "virtualmachineinstancemigrations", object),
    request: {
      ...review("kubevirt.io", "virtualmachineinstancemigrations", object).request,
      operation: "CREATE",
      namespace: "default",
    },
  });
  const withVMI = (phase: string): WebhookContext => ({
    ...context,
    migrationClient: {
      getVMI: async (namespace, name) => ({
        metadata: { name, namespace },
        spec: { domain: { devices: {} } },
        status: { phase },
      }),
      listMigrations: async () => [],
    },
  });

  it("serves upstream's mutator and admitters on the migration paths and refuses nothing there", async () => {
    for (const path of MIGRATION_PATHS) {
      expect(WEBHOOK_ROUTES.map((r) => r.path)).toContain(path);
      expect(NOT_YET_SERVED_WEBHOOK_ROUTES.map((r) => r.path)).not.toContain(path);
    }
    const on = { served: WEBHOOK_ROUTES };

    const mutated = await handleAdmission(
      createReview(migration),
      route(on.served, "/migration-mutate-create"),
      withVMI("Running"),
    );
    expect(mutated.code === 200 && mutated.body.response.allowed).toBe(true);
    const patch = mutated.code === 200 ? mutated.body.response.patch : undefined;
    expect(JSON.parse(Buffer.from(patch ?? "", "base64").toString("utf8"))).toEqual([
      {
        op: "replace",
        path: "/metadata",
        value: {
          generateName: "kubevirt-migrate-vm-",
          namespace: "default",
          labels: { "kubevirt.io/vmi-name": "testvmi" },
          finalizers: ["kubevirt.io/migrationJobFinalize"],
        },
      },
    ]);

    const create = route(on.served, "/migration-validate-create");
    expect((await handleAdmission(createReview(migration), create, withVMI("Running"))).body).toMatchObject({
      response: { allowed: true },
    });
    expect((await handleAdmission(createReview(migration), create, withVMI("Succeeded"))).body).toMatchObject(
      {
        response: {
          allowed: false,
          status: { code: 400, message: "Cannot migrate VMI in finalized state." },
        },
      },
    );
    expect((await handleAdmission(createReview(migration), create, context)).body).toMatchObject({
      response: { allowed: false, status: { code: 500 } },
    });

    const changed = { ...migration, spec: { vmiName: "other" } };
    const updateReview = {
      ...review("kubevirt.io", "virtualmachineinstancemigrations", changed),
      request: {
        ...review("kubevirt.io", "virtualmachineinstancemigrations", changed).request,
        oldObject: migration,
      },
    };
    const updated = await handleAdmission(
      updateReview,
      route(on.served, "/migration-validate-update"),
      context,
    );
    expect(updated.body).toMatchObject({
      response: {
        allowed: false,
        status: { code: 422, message: "update of Migration object's spec is restricted" },
      },
    });
  });
});
