import type { Backoff } from "./backoff.js";
import { formatGoDuration } from "../../../pkg/util/go-duration.js";
import {
  apiTime,
  CONTAINER_ID_SCHEME,
  NEVER_STARTED,
  pushExit,
  type ContainerRecord,
} from "./container-record.js";
import { buildContainerRequest } from "./container-request.js";
import type { DeviceAllocation } from "./device-manager.js";
import type { NodeAllocatable, PodRuntimeFacts } from "./downward-api.js";
import { ContainerConfigError, type ObjectSource } from "./env.js";
import { containerFieldPath, type EventRecorder } from "./events.js";
import type { Container, Pod } from "./k8s-types.js";
import { ImagePullError, type ContainerProcess, type PodRuntime } from "./pod-runtime.js";
import { podDescription, restartPolicyOf, shouldRestart, type ContainerKind } from "./restart-policy.js";
import { errorMessage } from "../../../pkg/util/error-message.js";

// One attempt to start a container instance, with kubelet's gates in kubelet's order: crash back-off
// (CrashLoopBackOff), image (ErrImagePull, then ImagePullBackOff), configuration
// (CreateContainerConfigError), then the start itself (RunContainerError, recorded as a StartError
// exit). The container's record is updated to what its status should show.

/** How soon a container whose configuration is incomplete is tried again. */
export const CONFIG_RETRY_MS = 10_000;
/** How soon a container that will not be retried is looked at again (nothing will change). */
const IDLE_MS = 60_000;

export interface StarterDeps {
  runtime: PodRuntime;
  events: EventRecorder;
  crashBackoff: Backoff;
  imageBackoff: Backoff;
  devices: { preStart(allocation: DeviceAllocation): Promise<void> };
  allocatable: () => NodeAllocatable;
  apiService: { host: string; port: number };
  objects: ObjectSource;
  now?: () => Date;
}

export interface StartInput {
  pod: Pod;
  container: Container;
  record: ContainerRecord;
  kind: ContainerKind;
  runtimeFacts: PodRuntimeFacts;
  allocations: readonly DeviceAllocation[];
}

/** Either the started process, or how long to wait before trying again. */
export type StartResult = { process: ContainerProcess } | { waitMs: number };

export async function startOrWait(deps: StarterDeps, input: StartInput): Promise<StartResult> {
  const { pod, container, record } = input;
  const now = deps.now?.() ?? new Date();
  const uid = pod.metadata.uid;
  const fieldPath = containerFieldPath(pod, container.name);
  const warn = (reason: string, message: string) =>
    deps.events.record(pod, "Warning", reason, message, fieldPath);
  const note = (reason: string, message: string) =>
    deps.events.record(pod, "Normal", reason, message, fieldPath);

  if (record.everStarted && record.lastExit) {
    const key = `${uid}/${container.name}`;
    const finishedAt = Date.parse(record.lastExit.finishedAt);
    if (deps.crashBackoff.isInBackOffSince(key, finishedAt)) {
      const delay = formatGoDuration(deps.crashBackoff.get(key));
      record.waiting = {
        reason: "CrashLoopBackOff",
        message: `back-off ${delay} restarting failed container=${container.name} pod=${podDescription(pod)}`,
      };
      warn("BackOff", `Back-off restarting failed container ${container.name} in pod ${podDescription(pod)}`);
      return { waitMs: deps.crashBackoff.remaining(key, finishedAt) };
    }
    deps.crashBackoff.next(key, finishedAt);
  }

  const image = container.image ?? "";
  const imageKey = `${uid}/image/${image}`;
  if (deps.imageBackoff.isInBackOffSinceUpdate(imageKey, now.getTime())) {
    record.waiting = { reason: "ImagePullBackOff", message: `Back-off pulling image "${image}"` };
    note("BackOff", `Back-off pulling image "${image}"`);
    return { waitMs: deps.imageBackoff.remainingSinceUpdate(imageKey) };
  }
  let imageRef;
  try {
    imageRef = await deps.runtime.pullImage(image);
  } catch (err) {
    if (!(err instanceof ImagePullError)) throw err;
    deps.imageBackoff.next(imageKey, now.getTime());
    record.waiting = { reason: "ErrImagePull", message: err.message };
    warn("Failed", `Failed to pull image "${image}": ${err.message}`);
    return { waitMs: deps.imageBackoff.get(imageKey) };
  }
  record.imageID = imageRef.imageID;

  const attempt = record.everStarted ? record.restartCount + 1 : 0;
  let request;
  try {
    request = await buildContainerRequest({
      pod,
      container,
      attempt,
      image: imageRef,
      runtimeFacts: input.runtimeFacts,
      allocatable: deps.allocatable(),
      apiService: deps.apiService,
      objects: deps.objects,
      allocations: input.allocations,
    });
  } catch (err) {
    if (!(err instanceof ContainerConfigError)) throw err;
    record.waiting = { reason: "CreateContainerConfigError", message: err.message };
    warn("Failed", `Error: ${err.message}`);
    return { waitMs: CONFIG_RETRY_MS };
  }
  for (const allocation of input.allocations) await deps.devices.preStart(allocation);

  note("Pulled", `Container image "${image}" already present on machine`);
  record.everStarted = true;
  record.restartCount = attempt;
  let process: ContainerProcess;
  try {
    process = await deps.runtime.startContainer(request);
  } catch (err) {
    const message = errorMessage(err);
    pushExit(record, {
      attempt,
      exitCode: 128,
      reason: "StartError",
      message,
      startedAt: NEVER_STARTED,
      finishedAt: apiTime(now),
      containerID: `${CONTAINER_ID_SCHEME}${uid}-${container.name}-${attempt}`,
    });
    warn("Failed", `Error: ${message}`);
    // A container that will be retried shows RunContainerError until the next sync turns it into a
    // back-off; one that will not is simply terminated with the StartError.
    if (!shouldRestart(restartPolicyOf(pod), input.kind, 128)) {
      record.waiting = undefined;
      return { waitMs: IDLE_MS };
    }
    record.waiting = { reason: "RunContainerError", message };
    return { waitMs: 0 };
  }
  record.waiting = undefined;
  record.running = {
    containerID: `${CONTAINER_ID_SCHEME}${process.id}`,
    startedAt: apiTime(process.startedAt),
    attempt,
  };
  note("Created", `Created container: ${container.name}`);
  note("Started", `Started container ${container.name}`);
  return { process };
}
