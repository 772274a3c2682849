import { describe, expect, it } from "vitest";
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from "../../api/generated/v1.js";
import { ApiError } from "../../controller/api-error.js";
import { FakeApiServer } from "../../controller/testing/fake-apiserver.js";
import { ClusterConfig } from "../../virt-config/cluster-config.js";
import {
  VIRT_API_MUTATING_WEBHOOKS,
  VIRT_API_VALIDATING_WEBHOOKS,
} from "../../virt-operator/resource/generate/components/webhooks.js";
import { migrationClient } from "../cluster.js";
import { handleAdmission } from "../webhooks/handler.js";
import {
  kubeVirtServiceAccounts,
  NOT_YET_SERVED_WEBHOOK_ROUTES,
  WEBHOOK_ROUTES,
  type WebhookContext,
  type WebhookRoute,
} from "../webhooks/routes.js";
import { MigrateApp, type MigrateClient } from "./migrate.js";

const NAMESPACE = "default";
const VM_NAME = "testvm";

const vm = (): VirtualMachine => ({
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachine",
  metadata: { name: VM_NAME, namespace: NAMESPACE, uid: "vm-uid" },
  spec: { runStrategy: "Always", template: { spec: { domain: { devices: {} } } } },
});

const vmi = (phase?: string): VirtualMachineInstance => ({
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachineInstance",
  metadata: { name: VM_NAME, namespace: NAMESPACE, uid: "vmi-uid" },
  spec: { domain: { devices: {} } },
  ...(phase === undefined ? {} : { status: { phase } }),
});

class FakeClient implements MigrateClient {
  readonly created: { namespace: string; migration: VirtualMachineInstanceMigration; dryRun: boolean }[] = [];
  vm: VirtualMachine | undefined = vm();
  vmi: VirtualMachineInstance | undefined = vmi("Running");
  vmError: Error | undefined;
  vmiError: Error | undefined;
  createError: Error | undefined;

  async getVM() {
    if (this.vmError) throw this.vmError;
    return this.vm;
  }
  async getVMI() {
    if (this.vmiError) throw this.vmiError;
    return this.vmi;
  }
  async createMigration(namespace: string, migration: VirtualMachineInstanceMigration, dryRun: boolean) {
    if (this.createError) throw this.createError;
    this.created.push({ namespace, migration, dryRun });
  }
}

const status = (code: number, reason: string, message: string, details?: unknown) => ({
  code,
  body: {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
    ...(details === undefined ? {} : { details }),
  },
});

describe("the migrate subresource", () => {
  it.each([
    ["no body", undefined, {}, false],
    ["an empty body", {}, {}, false],
    ["a dry run", { dryRun: ["All"] }, {}, true],
    [
      "an added node selector",
      { addedNodeSelector: { zone: "b" } },
      { addedNodeSelector: { zone: "b" } },
      false,
    ],
  ])("creates a migration of the VM's VMI, with %s, and answers 202", async (_case, body, extra, dryRun) => {
    const client = new FakeClient();
    expect(await new MigrateApp(client).handle(NAMESPACE, VM_NAME, body)).toEqual({ code: 202 });
    expect(client.created).toEqual([
      {
        namespace: NAMESPACE,
        migration: {
          apiVersion: "kubevirt.io/v1",
          kind: "VirtualMachineInstanceMigration",
          metadata: { generateName: "kubevirt-migrate-vm-" },
          spec: { vmiName: VM_NAME, ...extra },
        },
        dryRun,
      },
    ]);
  });

  it("refuses a body that is no MigrateOptions", async () => {
    const answer = await new MigrateApp(new FakeClient()).handle(NAMESPACE, VM_NAME, { dryRun: "All" });
    expect(answer.code).toBe(400);
    expect(answer.body?.message).toMatch(/^Can not unmarshal Request body to struct, error: dryRun: /);
  });

  it("answers NotFound when there is no VM, even for a dry run", async () => {
    for (const body of [{}, { dryRun: ["All"] }]) {
      const client = new FakeClient();
      client.vm = undefined;
      expect(await new MigrateApp(client).handle(NAMESPACE, VM_NAME, body)).toEqual(
        status(404, "NotFound", 'virtualmachine.kubevirt.io "testvm" not found', {
          name: VM_NAME,
          group: "kubevirt.io",
          kind: "virtualmachine",
        }),
      );
      expect(client.created).toEqual([]);
    }
  });

  it("answers NotFound when the VM has no VMI", async () => {
    const client = new FakeClient();
    client.vmi = undefined;
    expect(await new MigrateApp(client).handle(NAMESPACE, VM_NAME, undefined)).toEqual(
      status(404, "NotFound", 'virtualmachineinstance.kubevirt.io "testvm" not found', {
        name: VM_NAME,
        group: "kubevirt.io",
        kind: "virtualmachineinstance",
      }),
    );
  });

  it("answers a failed read as upstream's InternalError", async () => {
    const client = new FakeClient();
    client.vmError = new Error("connection refused");
    expect((await new MigrateApp(client).handle(NAMESPACE, VM_NAME, undefined)).body?.message).toBe(
      "Internal error occurred: unable to retrieve vm [testvm]: connection refused",
    );
    client.vmError = undefined;
    client.vmiError = new Error("connection refused");
    expect((await new MigrateApp(client).handle(NAMESPACE, VM_NAME, undefined)).body?.message).toBe(
      "Internal error occurred: unable to retrieve vmi [testvm]: connection refused",
    );
  });

  it.each([[undefined], ["Pending"], ["Scheduling"], ["Scheduled"], ["Succeeded"], ["Failed"]])(
    "answers Conflict when the VMI's phase is %s",
    async (phase) => {
      const client = new FakeClient();
      client.vmi = vmi(phase);
      expect(await new MigrateApp(client).handle(NAMESPACE, VM_NAME, { dryRun: ["All"] })).toEqual(
        status(
          409,
          "Conflict",
          'Operation cannot be fulfilled on virtualmachine.kubevirt.io "testvm": VM is not running',
          {
            name: VM_NAME,
            group: "kubevirt.io",
            kind: "virtualmachine",
          },
        ),
      );
      expect(client.created).toEqual([]);
    },
  );

  it("answers a failed creation as an InternalError with the apiserver's message", async () => {
    const client = new FakeClient();
    client.createError = new ApiError(500, "InternalError", "error creating object");
    expect(await new MigrateApp(client).handle(NAMESPACE, VM_NAME, undefined)).toEqual(
      status(500, "InternalError", "Internal error occurred: error creating object", {
        causes: [{ message: "error creating object" }],
      }),
    );
  });
});

describe("the migrate subresource against the apiserver", () => {
  it("creates the migration in the VM's namespace with a generated name", async () => {
    const apiserver = new FakeApiServer();
    apiserver.seed("kubevirt.io/virtualmachines", vm());
    apiserver.seed("kubevirt.io/virtualmachineinstances", vmi("Running"));
    expect(await new MigrateApp(migrationClient(apiserver)).handle(NAMESPACE, VM_NAME, undefined)).toEqual({
      code: 202,
    });
    const [created] = await migrationClient(apiserver).listMigrations(NAMESPACE, "");
    expect(created?.metadata?.name).toMatch(/^kubevirt-migrate-vm-/);
    expect(created?.metadata?.namespace).toBe(NAMESPACE);
    expect(created?.spec).toEqual({ vmiName: VM_NAME });
  });

  /**
   * The apiserver's admission chain for a new migration, as far as it matters here: the mutating webhook,
   * then the validating one, each called at its live route; a denial comes back as kube-apiserver words it
   * (ToStatusErr: `admission webhook "<name>" denied the request: <message>`).
   */
  function admittingClient(routes: readonly WebhookRoute[], context: WebhookContext): MigrateClient {
    const client = new FakeClient();
    const webhookName = (path: string) =>
      [...VIRT_API_MUTATING_WEBHOOKS, ...VIRT_API_VALIDATING_WEBHOOKS].find((row) => row.path === path)
        ?.name ?? "";
    client.createMigration = async (namespace, migration) => {
      for (const path of ["/migration-mutate-create", "/migration-validate-create"]) {
        const route = routes.find((candidate) => candidate.path === path);
        if (!route) throw new Error(`no route ${path}`);
        const answer = await handleAdmission(
          {
            apiVersion: "admission.k8s.io/v1",
            kind: "AdmissionReview",
            request: {
              uid: "u",
              resource: { group: "kubevirt.io", version: "v1", resource: "virtualmachineinstancemigrations" },
              operation: "CREATE",
              namespace,
              object: { ...migration, metadata: { ...migration.metadata, namespace } },
            },
          },
          route,
          context,
        );
        if (answer.code !== 200) throw new Error("bad review");
        const { allowed, status: denial } = answer.body.response;
        if (!allowed) {
          const message = `admission webhook "${webhookName(path)}" denied the request: ${denial?.message ?? ""}`;
          throw new ApiError(denial?.code ?? 400, denial?.reason ?? "", message);
        }
      }
      client.created.push({ namespace, migration, dryRun: false });
    };
    return client;
  }

  const context: WebhookContext = {
    clusterConfig: () => ClusterConfig.defaults(),
    kubeVirtServiceAccounts: kubeVirtServiceAccounts("kubevirt"),
    migrationClient: {
      getVMI: async () => vmi("Running"),
      listMigrations: async () => [],
    },
  };

  it("goes through the migration admitters: accepted, or their refusal handed back", async () => {
    const routes = [...WEBHOOK_ROUTES, ...NOT_YET_SERVED_WEBHOOK_ROUTES];
    expect(
      await new MigrateApp(admittingClient(routes, context)).handle(NAMESPACE, VM_NAME, undefined),
    ).toEqual({
      code: 202,
    });
    const busy: WebhookContext = {
      ...context,
      migrationClient: {
        getVMI: async () => vmi("Running"),
        listMigrations: async () => [
          { metadata: { uid: "m-1" }, spec: { vmiName: VM_NAME }, status: { phase: "Running" } },
        ],
      },
    };
    const why =
      'admission webhook "migration-create-validator.kubevirt.io" denied the request: in-flight migration detected. Active migration job (m-1) is currently already in progress for VMI testvm.';
    expect(await new MigrateApp(admittingClient(routes, busy)).handle(NAMESPACE, VM_NAME, undefined)).toEqual(
      status(500, "InternalError", `Internal error occurred: ${why}`, { causes: [{ message: why }] }),
    );
  });
});
