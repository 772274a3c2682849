// The addvolume/removevolume subresources' rules (upstream pkg/virt-api/rest/volumes.go) as pure
// functions: the body's checks with upstream's messages, the conflicts with the volumes already there,
// and the guarded JSON patches: a VMI's (or VM template's) volumes and disks, or a VM's status.volumeRequests.
import type {
  AddVolumeOptions,
  HotplugVolumeSource,
  RemoveVolumeOptions,
  VirtualMachine,
  VirtualMachineInstanceSpec,
  VirtualMachineVolumeRequest,
  Volume,
} from "../../api/generated/v1.js";
import { AddVolumeOptionsSchema, RemoveVolumeOptionsSchema } from "../../api/generated/v1.js";
import { applyVolumeRequestOnVMISpec } from "../../controller/volume-request.js";
import type { JsonPatchOperation } from "./patch.js";
import { badRequest, type Status } from "./status.js";

export const HOTPLUG_VOLUME_NOT_ENABLED =
  "Enable DeclarativeHotplugVolumes or HotplugVolumes feature gate to use this API.";

type Decoded<T> = { ok: true; value: T } | { ok: false; status: Status };

const unmarshalError = (detail: string): Status =>
  badRequest(`Can not unmarshal Request body to struct, error: ${detail}`);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Go decodes an empty body as empty options and a missing field as its zero value, so the required fields
 * are checked by hand (upstream's messages) and only then is the rest held to the schema.
 */
function decodeBody<T>(
  body: unknown,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: unknown } },
  missing: (fields: Record<string, unknown>) => string | undefined,
  prepare: (fields: Record<string, unknown>) => Record<string, unknown> = (fields) => fields,
): Decoded<T> {
  const empty = body === undefined || body === null || body === "";
  if (!empty && !isRecord(body)) return { ok: false, status: unmarshalError("expected a JSON object") };
  const fields = empty ? {} : body;
  const why = missing(fields);
  if (why) return { ok: false, status: badRequest(why) };
  const parsed = schema.safeParse(prepare(fields));
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = (parsed.error as { issues?: { path: PropertyKey[]; message: string }[] }).issues?.[0];
  return {
    ok: false,
    status: unmarshalError(issue ? `${issue.path.map(String).join(".")}: ${issue.message}` : "invalid body"),
  };
}

const present = (value: unknown) => value !== undefined && value !== null;

export function decodeAddVolumeOptions(body: unknown): Decoded<AddVolumeOptions> {
  return decodeBody(
    body,
    AddVolumeOptionsSchema,
    (fields) => {
      if (typeof fields["name"] !== "string" || fields["name"] === "")
        return "AddVolumeOptions requires name to be set";
      if (!present(fields["disk"])) return "AddVolumeOptions requires disk to not be nil";
      if (!present(fields["volumeSource"])) return "AddVolumeOptions requires VolumeSource to not be nil";
      return undefined;
    },
    // The disk's own name is overwritten by the volume's, so it need not be sent.
    (fields) =>
      isRecord(fields["disk"]) ? { ...fields, disk: { ...fields["disk"], name: fields["name"] } } : fields,
  );
}

export function decodeRemoveVolumeOptions(body: unknown): Decoded<RemoveVolumeOptions> {
  return decodeBody(body, RemoveVolumeOptionsSchema, (fields) =>
    typeof fields["name"] !== "string" || fields["name"] === ""
      ? "RemoveVolumeOptions requires name to be set"
      : undefined,
  );
}

/** The request an addvolume call makes: the disk takes the volume's name, the source is hotpluggable. */
export function addVolumeRequest(options: AddVolumeOptions): VirtualMachineVolumeRequest {
  const request = structuredClone(options);
  request.disk = { ...request.disk, name: request.name };
  const source = request.volumeSource;
  if (source.dataVolume) source.dataVolume.hotpluggable = true;
  else if (source.persistentVolumeClaim) source.persistentVolumeClaim.hotpluggable = true;
  return { addVolumeOptions: request };
}

export const removeVolumeRequest = (options: RemoveVolumeOptions): VirtualMachineVolumeRequest => ({
  removeVolumeOptions: structuredClone(options),
});

/** Upstream's getDryRunOption: only a dryRun of All counts. */
export function volumeRequestDryRun(request: VirtualMachineVolumeRequest): boolean {
  const options = request.addVolumeOptions ?? request.removeVolumeOptions;
  return options?.dryRun?.[0] === "All";
}

function sourceName(source: HotplugVolumeSource | undefined): string {
  return source?.dataVolume?.name ?? source?.persistentVolumeClaim?.claimName ?? "";
}

const sourceIs = (volume: Volume, name: string) =>
  volume.dataVolume?.name === name || volume.persistentVolumeClaim?.claimName === name;

const isHotpluggable = (volume: Volume) =>
  volume.dataVolume?.hotpluggable === true || volume.persistentVolumeClaim?.hotpluggable === true;

/**
 * Upstream's verifyVolumeOption: an add may reuse neither a volume's name nor its claim; a remove needs a
 * hotpluggable volume of that name (or claim). The reason, to be sent as a Conflict, or undefined.
 */
export function volumeRequestConflict(
  volumes: readonly Volume[],
  request: VirtualMachineVolumeRequest,
): string | undefined {
  const add = request.addVolumeOptions;
  if (add) {
    const claim = sourceName(add.volumeSource);
    for (const volume of volumes) {
      if (volume.name === add.name)
        return `Unable to add volume [${add.name}] because volume with that name already exists`;
      if (sourceIs(volume, claim)) return `Unable to add volume source [${claim}] because it already exists`;
    }
    return undefined;
  }
  const remove = request.removeVolumeOptions;
  if (!remove) return undefined;
  const volume = volumes.find(
    (candidate) => candidate.name === remove.name || sourceIs(candidate, remove.name),
  );
  if (!volume) return `Unable to remove volume [${remove.name}] because it does not exist`;
  if (!isHotpluggable(volume))
    return `Unable to remove volume [${volume.name}] because it is not hotpluggable`;
  return undefined;
}

/** Replaces (or adds, when empty) the spec's volumes and disks, each guarded by a test of what was read. */
export function volumeRequestSpecPatch(
  prefix: "" | "/spec/template",
  spec: VirtualMachineInstanceSpec,
  request: VirtualMachineVolumeRequest,
): JsonPatchOperation[] {
  const volumesPath = `${prefix}/spec/volumes`;
  const disksPath = `${prefix}/spec/domain/devices/disks`;
  const next = applyVolumeRequestOnVMISpec(spec, request);
  const volumes = spec.volumes ?? [];
  const disks = spec.domain.devices.disks ?? [];
  return [
    { op: "test", path: volumesPath, value: spec.volumes ?? null },
    { op: "test", path: disksPath, value: spec.domain.devices.disks ?? null },
    { op: volumes.length > 0 ? "replace" : "add", path: volumesPath, value: next.volumes ?? [] },
    { op: disks.length > 0 ? "replace" : "add", path: disksPath, value: next.domain.devices.disks ?? [] },
  ];
}

const addsVolume = (request: VirtualMachineVolumeRequest, name: string) =>
  request.addVolumeOptions?.name === name;
const removesVolume = (request: VirtualMachineVolumeRequest, name: string) =>
  request.removeVolumeOptions?.name === name;

/**
 * The VM's volume requests with this one appended (upstream's generateVMVolumeRequestPatch): an add may not
 * repeat a pending add or race a pending remove; a remove replaces a pending add of that volume.
 */
export function nextVolumeRequests(
  pending: readonly VirtualMachineVolumeRequest[],
  request: VirtualMachineVolumeRequest,
): { ok: true; requests: VirtualMachineVolumeRequest[] } | { ok: false; message: string } {
  const add = request.addVolumeOptions;
  if (add) {
    for (const other of pending) {
      if (addsVolume(other, add.name))
        return { ok: false, message: `add volume request for volume [${add.name}] already exists` };
      if (removesVolume(other, add.name)) {
        return {
          ok: false,
          message: `unable to add volume since a remove volume request for volume [${add.name}] already exists and is still being processed`,
        };
      }
    }
    return { ok: true, requests: [...pending, request] };
  }
  const name = request.removeVolumeOptions?.name ?? "";
  if (pending.some((other) => removesVolume(other, name))) {
    return {
      ok: false,
      message: `a remove volume request for volume [${name}] already exists and is still being processed`,
    };
  }
  return { ok: true, requests: [...pending.filter((other) => !addsVolume(other, name)), request] };
}

/** The status patch that records the request on the VM, guarded by a test of the requests read. */
export function volumeRequestsStatusPatch(
  vm: VirtualMachine,
  requests: VirtualMachineVolumeRequest[],
): JsonPatchOperation[] {
  const pending = vm.status?.volumeRequests;
  // A VM never reported on has no status to add the requests to yet.
  if (!vm.status || Object.keys(vm.status).length === 0) {
    return [{ op: "add", path: "/status", value: { volumeRequests: requests } }];
  }
  const op = (pending?.length ?? 0) > 0 ? "replace" : "add";
  return [
    { op: "test", path: "/status/volumeRequests", value: pending ?? null },
    { op, path: "/status/volumeRequests", value: requests },
  ];
}
