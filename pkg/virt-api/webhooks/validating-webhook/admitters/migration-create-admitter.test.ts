import { describe, expect, it } from "vitest";
import type {
  VirtualMachineInstance,
  VirtualMachineInstanceMigration,
} from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import { ApiError } from "../../../../controller/api-error.js";
import { kubeVirtServiceAccounts } from "../../routes.js";
import {
  HotplugMigrationNotSupported,
  admitMigrationCreate,
  type MigrationAdmissionClient,
  type MigrationCreateContext,
} from "./migration-create-admitter.js";
import type { ValidationRequest } from "./admission.js";

const NAMESPACE = "default";
const VMI_NAME = "testvmi";

function vmi(status?: VirtualMachineInstance["status"], name = VMI_NAME): VirtualMachineInstance {
  const object: VirtualMachineInstance = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name, namespace: NAMESPACE },
    spec: { domain: { devices: {} } },
  };
  if (status) object.status = status;
  return object;
}

function migration(spec: Record<string, unknown> = { vmiName: VMI_NAME }): Record<string, unknown> {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceMigration",
    metadata: { name: "testmigration", namespace: NAMESPACE },
    spec,
  };
}

function inFlight(phase: string | undefined, uid = "mig-uid"): VirtualMachineInstanceMigration {
  const object: VirtualMachineInstanceMigration = {
    metadata: { name: `m-${uid}`, namespace: NAMESPACE, uid, labels: { "kubevirt.io/vmi-name": VMI_NAME } },
    spec: { vmiName: VMI_NAME },
  };
  if (phase !== undefined) object.status = { phase };
  return object;
}

class FakeClient implements MigrationAdmissionClient {
  readonly selectors: { namespace: string; selector: string }[] = [];
  readonly reads: { namespace: string; name: string }[] = [];
  getError: Error | undefined;
  listError: Error | undefined;

  constructor(
    private readonly vmis: VirtualMachineInstance[] = [],
    private readonly migrations: VirtualMachineInstanceMigration[] = [],
  ) {}

  async getVMI(namespace: string, name: string) {
    this.reads.push({ namespace, name });
    if (this.getError) throw this.getError;
    return this.vmis.find((v) => v.metadata?.name === name && v.metadata.namespace === namespace);
  }

  async listMigrations(namespace: string, selector: string) {
    this.selectors.push({ namespace, selector });
    if (this.listError) throw this.listError;
    return this.migrations;
  }
}

function context(client: MigrationAdmissionClient, featureGates: string[] = []): MigrationCreateContext {
  return {
    clusterConfig: clusterWith({ developerConfiguration: { featureGates } }),
    kubeVirtServiceAccounts: kubeVirtServiceAccounts("kubevirt"),
    client,
  };
}

const create = (object: unknown, username?: string): ValidationRequest => ({
  operation: "CREATE",
  object,
  namespace: NAMESPACE,
  ...(username === undefined ? {} : { username }),
});

const badRequest = (message: string) => ({ allowed: false, result: { message, code: 400 } });
const invalidWith = (causes: { reason?: string; message: string; field?: string }[]) => ({
  allowed: false,
  result: {
    message: causes.map((c) => c.message).join(", "),
    code: 422,
    reason: "Invalid",
    details: { causes },
  },
});

describe("the migration create admitter", () => {
  it("accepts a migration of an existing VMI with no migration in flight", async () => {
    const client = new FakeClient([vmi()]);
    expect(await admitMigrationCreate(create(migration()), context(client))).toEqual({ allowed: true });
    expect(client.reads).toEqual([{ namespace: NAMESPACE, name: VMI_NAME }]);
    expect(client.selectors).toEqual([
      { namespace: NAMESPACE, selector: "kubevirt.io/vmi-name in (testvmi)" },
    ]);
  });

  it("accepts one when the previous migration of the VMI completed", async () => {
    const done = vmi({ migrationState: { migrationUid: "123", completed: true, failed: false } });
    const client = new FakeClient([done], [inFlight("Succeeded", "a"), inFlight("Failed", "b")]);
    expect(await admitMigrationCreate(create(migration()), context(client))).toEqual({ allowed: true });
  });

  it.each([[undefined], ["Pending"], ["Scheduling"], ["Running"]])(
    "refuses one while another migration (phase %s) is in flight",
    async (phase) => {
      const client = new FakeClient(
        [vmi({ phase: "Running" })],
        [inFlight("Succeeded", "old"), inFlight(phase)],
      );
      expect(await admitMigrationCreate(create(migration()), context(client))).toEqual(
        badRequest(
          "in-flight migration detected. Active migration job (mig-uid) is currently already in progress for VMI testvmi.",
        ),
      );
    },
  );

  it("refuses a spec without vmiName, before reading anything", async () => {
    const client = new FakeClient();
    for (const spec of [{}, { vmiName: "" }]) {
      expect(await admitMigrationCreate(create(migration(spec)), context(client))).toEqual(
        invalidWith([{ reason: "FieldValueRequired", message: "vmiName is missing", field: "spec.vmiName" }]),
      );
    }
    expect(client.reads).toEqual([]);
  });

  it("refuses unknown fields with the openapi messages", async () => {
    const object = { very: "unknown", spec: { extremely: "unknown" } };
    expect(await admitMigrationCreate(create(object), context(new FakeClient()))).toEqual(
      invalidWith([
        { message: ".very in body is a forbidden property" },
        { message: "spec.extremely in body is a forbidden property" },
      ]),
    );
  });

  it("refuses a migration without spec, as upstream's openapi validator words it", async () => {
    expect(await admitMigrationCreate(create({ metadata: {} }), context(new FakeClient()))).toEqual(
      invalidWith([
        { message: "spec in body is required" },
        { message: 'spec in body must be of type object: "null"' },
      ]),
    );
  });

  it("answers an object Go cannot decode with Go's error, as a 400", async () => {
    expect(await admitMigrationCreate(create([]), context(new FakeClient()))).toEqual(
      badRequest("json: cannot unmarshal array into Go value of type v1.VirtualMachineInstanceMigration"),
    );
    const labelled = { ...migration(), metadata: { labels: { a: 1 } } };
    expect(await admitMigrationCreate(create(labelled), context(new FakeClient()))).toEqual(
      badRequest(
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
      ),
    );
  });

  it("refuses a migration of a VMI that does not exist", async () => {
    expect(await admitMigrationCreate(create(migration()), context(new FakeClient()))).toEqual(
      badRequest('the VMI "default/testvmi" does not exist'),
    );
  });

  it("reads the VMI in the request's namespace when the object names none", async () => {
    const client = new FakeClient([vmi()]);
    const object = { ...migration(), metadata: { name: "m" } };
    expect(await admitMigrationCreate(create(object), context(client))).toEqual({ allowed: true });
    expect(client.reads).toEqual([{ namespace: NAMESPACE, name: VMI_NAME }]);
  });

  it("answers a failed read of the VMI or of the migrations with its error", async () => {
    const client = new FakeClient([vmi()]);
    client.getError = new ApiError(403, "Forbidden", "virtualmachineinstances is forbidden");
    expect(await admitMigrationCreate(create(migration()), context(client))).toEqual(
      badRequest("virtualmachineinstances is forbidden"),
    );
    client.getError = undefined;
    client.listError = new Error("connection refused");
    expect(await admitMigrationCreate(create(migration()), context(client))).toEqual(
      badRequest("connection refused"),
    );
  });

  it.each([["Succeeded"], ["Failed"]])("refuses a migration of a VMI that is %s", async (phase) => {
    const client = new FakeClient([vmi({ phase })]);
    expect(await admitMigrationCreate(create(migration()), context(client))).toEqual(
      badRequest("Cannot migrate VMI in finalized state."),
    );
    expect(client.selectors).toEqual([]);
  });

  it("does not look at the VMI's phase otherwise, nor at its deletion", async () => {
    const pending = vmi({ phase: "Pending" });
    pending.metadata = { ...pending.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    expect(await admitMigrationCreate(create(migration()), context(new FakeClient([pending])))).toEqual({
      allowed: true,
    });
  });

  it("refuses a migration of a VMI that is not live migratable, with the condition's reason and message", async () => {
    const notMigratable = vmi({
      phase: "Running",
      conditions: [
        {
          type: "LiveMigratable",
          status: "False",
          reason: "DisksNotLiveMigratable",
          message: "cannot migrate VMI with mixes shared and non-shared volumes",
        },
        { type: "Ready", status: "True" },
      ],
    });
    expect(await admitMigrationCreate(create(migration()), context(new FakeClient([notMigratable])))).toEqual(
      badRequest(
        "Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: cannot migrate VMI with mixes shared and non-shared volumes",
      ),
    );
  });

  it("refuses a VMI with hotplugged volumes, which kubevirt-ts cannot migrate yet", async () => {
    const hotplugged = vmi({
      phase: "Running",
      volumeStatus: [{ name: "hp", target: "sda", hotplugVolume: { attachPodName: "hp-volume-x" } }],
    });
    expect(await admitMigrationCreate(create(migration()), context(new FakeClient([hotplugged])))).toEqual(
      badRequest(HotplugMigrationNotSupported),
    );
  });

  it("accepts a VMI whose LiveMigratable condition is True or absent", async () => {
    const migratable = vmi({ phase: "Running", conditions: [{ type: "LiveMigratable", status: "True" }] });
    expect(await admitMigrationCreate(create(migration()), context(new FakeClient([migratable])))).toEqual({
      allowed: true,
    });
  });

  it("lets a decentralized migration through disks that are not migratable, and only that reason", async () => {
    const withReason = (reason: string) =>
      vmi({
        phase: "Running",
        conditions: [{ type: "LiveMigratable", status: "False", reason, message: "m" }],
      });
    const decentralized = migration({ vmiName: VMI_NAME, receive: { migrationID: "id" } });
    const gate = ["DecentralizedLiveMigration"];
    expect(
      await admitMigrationCreate(
        create(decentralized),
        context(new FakeClient([withReason("DisksNotLiveMigratable")]), gate),
      ),
    ).toEqual({ allowed: true });
    expect(
      await admitMigrationCreate(
        create(decentralized),
        context(new FakeClient([withReason("InterfaceNotLiveMigratable")]), gate),
      ),
    ).toEqual(badRequest("Cannot migrate VMI, Reason: InterfaceNotLiveMigratable, Message: m"));
    // Both sendTo and receive is no decentralized migration: the disks still count.
    const both = migration({
      vmiName: VMI_NAME,
      receive: { migrationID: "id" },
      sendTo: { migrationID: "id", connectURL: "1.1.1.1:12345" },
    });
    expect(
      await admitMigrationCreate(
        create(both),
        context(new FakeClient([withReason("DisksNotLiveMigratable")]), gate),
      ),
    ).toEqual(badRequest("Cannot migrate VMI, Reason: DisksNotLiveMigratable, Message: m"));
  });

  it("refuses a VMI name no label value can hold, as labels.Parse does", async () => {
    const long = "a".repeat(64);
    const client = new FakeClient([vmi(undefined, long)]);
    expect(await admitMigrationCreate(create(migration({ vmiName: long })), context(client))).toEqual(
      badRequest(
        `values[0][kubevirt.io/vmi-name]: Invalid value: "${long}": must be no more than 63 characters`,
      ),
    );
  });

  describe("sendTo and receive (DecentralizedLiveMigration)", () => {
    const sendTo = { migrationID: "migrationID", connectURL: "1.1.1.1:12345" };
    const receive = { migrationID: "migrationID" };
    const gateOff = invalidWith([
      {
        reason: "FieldValueNotSupported",
        message: "DecentralizedLiveMigration feature gate is not enabled in kubevirt resource",
      },
    ]);
    it.each([
      ["sendTo", { sendTo }, [], gateOff],
      ["receive", { receive }, [], gateOff],
      ["sendTo", { sendTo }, ["DecentralizedLiveMigration"], { allowed: true }],
      ["receive", { receive }, ["DecentralizedLiveMigration"], { allowed: true }],
      ["sendTo and receive", { sendTo, receive }, ["DecentralizedLiveMigration"], { allowed: true }],
      [
        "sendTo and receive with other IDs",
        { sendTo, receive: { migrationID: "migrationID2" } },
        ["DecentralizedLiveMigration"],
        invalidWith([
          {
            reason: "FieldValueInvalid",
            message: "sendTo migrationID migrationID does not match receive migrationID migrationID2",
          },
        ]),
      ],
    ])("%s with gates %j", async (_name, fields, gates, expected) => {
      const client = new FakeClient([vmi({ phase: "Running" })]);
      const object = migration({ vmiName: VMI_NAME, ...fields });
      expect(await admitMigrationCreate(create(object), context(client, gates))).toEqual(expected);
    });
  });

  describe("priority (MigrationPriorityQueue)", () => {
    const prioritized = migration({ vmiName: VMI_NAME, priority: "system-critical" });
    const controller = "system:serviceaccount:kubevirt:kubevirt-controller";
    const forbidden = (message: string) =>
      invalidWith([{ reason: "FieldValueForbidden", message, field: "spec.migrationPriority" }]);

    it.each([[controller], ["system:serviceaccount:external-user"]])(
      "is refused without the gate, even from %s",
      async (user) => {
        const client = new FakeClient([vmi({ phase: "Running" })]);
        expect(await admitMigrationCreate(create(prioritized, user), context(client))).toEqual(
          forbidden("MigrationPriorityQueue feature gate is not enabled in kubevirt resource"),
        );
      },
    );

    it.each([
      ["system:serviceaccount:external-user"],
      ["system:serviceaccount:kubevirt:kubevirt-handler"],
      ["system:serviceaccount:other:kubevirt-controller"],
      [undefined],
    ])("is refused with the gate from %s", async (user) => {
      const client = new FakeClient([vmi({ phase: "Running" })]);
      expect(
        await admitMigrationCreate(create(prioritized, user), context(client, ["MigrationPriorityQueue"])),
      ).toEqual(forbidden("Migration priority queue, only virt-controller is allowed to set priority field"));
    });

    it("is accepted with the gate from virt-controller", async () => {
      const client = new FakeClient([vmi({ phase: "Running" })]);
      expect(
        await admitMigrationCreate(
          create(prioritized, controller),
          context(client, ["MigrationPriorityQueue"]),
        ),
      ).toEqual({ allowed: true });
    });
  });
});
