// The `migrate` VM subresource (upstream lifecycle.go MigrateVMRequestHandler): PUT
// .../virtualmachines/{name}/migrate with an optional v1.MigrateOptions body. The VM must exist and its VMI
// be Running; then a VirtualMachineInstanceMigration named kubevirt-migrate-vm-<random> is created for it
// through the apiserver, so the migration webhooks judge it, and whatever the apiserver answers is an
// InternalError carrying its message. 202 Accepted on success.
import {
  MigrateOptionsSchema,
  type MigrateOptions,
  type VirtualMachine,
  type VirtualMachineInstance,
  type VirtualMachineInstanceMigration,
} from "../../api/generated/v1.js";
import { VM_NOT_RUNNING } from "./lifecycle.js";
import {
  decodeOptions,
  fetchVM,
  fetchVMI,
  isDryRun,
  orInternalError,
  reply,
  type SubresourceReply,
} from "./subresource-app.js";
import { conflict, internalError, virtualMachineResource } from "./status.js";
import { errorMessage } from "../../util/error-message.js";

/** The generateName of the migrations the subresource creates. */
export const MIGRATE_VM_GENERATE_NAME = "kubevirt-migrate-vm-";

/** What the migrate subresource needs from the cluster; `undefined` means NotFound. */
export interface MigrateClient {
  getVM(namespace: string, name: string): Promise<VirtualMachine | undefined>;
  getVMI(namespace: string, name: string): Promise<VirtualMachineInstance | undefined>;
  /** Creates the migration in the namespace; the apiserver's refusal (a webhook's included) throws. */
  createMigration(
    namespace: string,
    migration: VirtualMachineInstanceMigration,
    dryRun: boolean,
  ): Promise<void>;
}

/** The migration upstream creates: only a generateName and the spec. */
export function migrationFor(vmName: string, options: MigrateOptions): VirtualMachineInstanceMigration {
  const spec: VirtualMachineInstanceMigration["spec"] = { vmiName: vmName };
  if (options.addedNodeSelector !== undefined) spec.addedNodeSelector = options.addedNodeSelector;
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceMigration",
    metadata: { generateName: MIGRATE_VM_GENERATE_NAME },
    spec,
  };
}

export class MigrateApp {
  constructor(private readonly client: MigrateClient) {}

  async handle(namespace: string, name: string, body: unknown): Promise<SubresourceReply> {
    return orInternalError(() => this.migrate(namespace, name, body));
  }

  private async migrate(namespace: string, name: string, body: unknown): Promise<SubresourceReply> {
    const options = decodeOptions(MigrateOptionsSchema, body);
    if (!options.ok) return reply(options.status);
    const vm = await fetchVM(this.client, namespace, name);
    if ("code" in vm) return reply(vm);
    const vmi = await fetchVMI(this.client, namespace, name);
    if ("code" in vmi) return reply(vmi);
    if (vmi.status?.phase !== "Running") return reply(conflict(virtualMachineResource, name, VM_NOT_RUNNING));
    try {
      await this.client.createMigration(
        namespace,
        migrationFor(name, options.value),
        isDryRun(options.value),
      );
    } catch (error) {
      return reply(internalError(errorMessage(error)));
    }
    return { code: 202 };
  }
}
