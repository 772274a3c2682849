import { lastLogLines } from "./cri-log.js";
import { extendedResourceRequests, podRef } from "./container-request.js";
import {
  apiTime,
  exitReason,
  newRecord,
  NEVER_STARTED,
  phaseOf,
  pushExit,
  toContainerStatus,
  CONTAINER_ID_SCHEME,
  type ContainerRecord,
} from "./container-record.js";
import { startOrWait, type StarterDeps } from "./container-starter.js";
import {
  AdmissionError,
  isExtendedResource,
  type DeviceAllocation,
  type DeviceManager,
} from "./device-manager.js";
import { containerFieldPath } from "./events.js";
import type { KubeClient } from "./kube-client.js";
import type { Container, Pod } from "./k8s-types.js";
import type { Logger } from "./logger.js";
import { ContainerProbes } from "./prober.js";
import type { ProbeRunner } from "./probe-runner.js";
import type { PodDNSConfigurer } from "./pod-dns.js";
import type { ContainerProcess, ExitStatus, PersistentVolumeSource, Sandbox } from "./pod-runtime.js";
import type { PodState, PodStateStore } from "./pod-state-store.js";
import { buildPodStatus, isTerminalPhase } from "./pod-status-report.js";
import {
  containerKind,
  isRestartableInit,
  restartPolicyOf,
  shouldRestart,
  type ContainerKind,
} from "./restart-policy.js";
import { renderVolumes, UnsupportedVolumeError, VolumeSetUpError, type TokenSource } from "./volumes.js";
import { errorMessage } from "../../../pkg/util/error-message.js";

// One pod's lifecycle on the node, driven by `sync` (called by the work queue, one call at a time, after
// every change of the pod or of its containers): admit (device allocation), sandbox, volumes, init
// containers in order (sidecars among them keep running), then the containers, restarts with kubelet's
// back-off, status reporting, and on deletion: stop with the grace period (sidecars last), tear down, and
// delete the pod object.

export const RESYNC_MS = 60_000;
/** How soon kubelet's pod worker retries after a failed sync step. */
export const RETRY_MS = 10_000;
const MIN_GRACE_SECONDS = 2;
const DEFAULT_GRACE_SECONDS = 30;

export type DeviceAllocator = Pick<DeviceManager, "allocate" | "preStart" | "restore" | "release">;

export interface PodWorkerDeps extends StarterDeps {
  nodeName: string;
  nodeIP: string;
  client: KubeClient;
  devices: DeviceAllocator;
  tokens: TokenSource & { forget(uid: string): void };
  probeRunner: ProbeRunner;
  /** The pod's resolv.conf settings (kubelet's --cluster-dns, --cluster-domain, --resolv-conf). */
  dns: Pick<PodDNSConfigurer, "forPod">;
  store: PodStateStore;
  /** Asks for another sync of this pod (after `afterMs`, or now). */
  enqueue: (uid: string, afterMs?: number) => void;
  log: Logger;
}

export interface SyncOutcome {
  requeueAfterMs?: number;
  /** The pod is gone from the apiserver and cleaned up: the worker can be dropped. */
  done?: boolean;
}

export class PodWorker {
  readonly uid: string;
  private pod: Pod;
  private sandbox: Sandbox | undefined;
  private readonly records = new Map<string, ContainerRecord>();
  private readonly processes = new Map<string, ContainerProcess>();
  private readonly probes = new Map<string, ContainerProbes>();
  private allocations: Record<string, DeviceAllocation[]> = {};
  private admission: "pending" | "admitted" | AdmissionError = "pending";
  private startTime: string | undefined;
  private volumesFingerprint: string | undefined;
  private readonly resolvedClaims = new Map<string, PersistentVolumeSource>();
  private volumesRenderedAt: number | undefined;
  private sandboxEnsured = false;
  /** When a failed sandbox may be tried again (kubelet's pod worker back-off after a sync error). */
  private sandboxRetryAt: number | undefined;
  private lastStatus: string | undefined;
  private lastSaved: string | undefined;
  private podIPs: string[] = [];
  /** Containers will not be (re)started: the pod reached a terminal phase or is being deleted. */
  private stopped = false;
  private finished = false;
  private readonly now: () => Date;

  constructor(
    pod: Pod,
    private readonly deps: PodWorkerDeps,
  ) {
    this.uid = pod.metadata.uid;
    this.pod = pod;
    this.now = deps.now ?? (() => new Date());
  }

  get namespace(): string {
    return this.pod.metadata.namespace ?? "default";
  }

  get name(): string {
    return this.pod.metadata.name;
  }

  /** The record of a container, for the logs endpoint. */
  record(container: string): ContainerRecord | undefined {
    return this.records.get(container);
  }

  isRunning(container: string): boolean {
    return this.processes.has(container);
  }

  // ---- restore after an agent restart ----

  /** Takes over what an earlier agent run recorded; live processes are adopted, dead ones count as exited. */
  restore(
    state: PodState,
    live: Map<string, { id: string; process?: ContainerProcess; exit?: ExitStatus }>,
  ): void {
    this.startTime = state.startTime;
    this.podIPs = state.podIPs;
    if (state.podIPs.length > 0) this.sandbox = { podIPs: state.podIPs };
    this.allocations = state.allocations;
    for (const [container, list] of Object.entries(state.allocations)) {
      for (const allocation of list) this.deps.devices.restore(this.uid, container, allocation);
    }
    this.admission = "admitted";
    for (const saved of state.containers) {
      const record: ContainerRecord = { ...saved };
      this.records.set(record.name, record);
      if (!record.running) continue;
      const found = live.get(record.name);
      const id = record.running.containerID.slice(CONTAINER_ID_SCHEME.length);
      if (found?.process && found.id === id) {
        this.watch(record.name, found.process);
      } else {
        const exit = found?.id === id ? found.exit : undefined;
        this.recordExit(
          record,
          exit ?? { exitCode: 255, finishedAt: this.now() },
          exit ? undefined : "Unknown",
        );
      }
    }
  }

  // ---- the sync loop ----

  async sync(pod: Pod | undefined): Promise<SyncOutcome> {
    if (!pod) return this.finished ? { done: true } : this.forget();
    if (this.finished) {
      // Cleaned up, but the pod object is still there: ask again until the informer sees it go.
      await this.deps.client.deletePodNow(this.namespace, this.name, this.uid);
      return { requeueAfterMs: RETRY_MS };
    }
    this.pod = pod;
    if (pod.metadata.deletionTimestamp) return this.terminateAndDelete();
    if (isTerminalPhase(pod.status?.phase)) this.stopped = true;

    let wake = RESYNC_MS;
    if (!this.stopped) {
      if (this.admission === "pending") await this.admit();
      if (this.admission instanceof AdmissionError) {
        this.stopped = true;
      } else {
        wake = Math.min(wake, await this.runContainers());
      }
    }
    // A finished pod this agent knows nothing about (e.g. after losing its state): keep the status it has.
    const unknownFinishedPod = this.records.size === 0 && isTerminalPhase(pod.status?.phase);
    const phase = unknownFinishedPod ? (pod.status?.phase as string) : await this.reportStatus();
    if (isTerminalPhase(phase) && !this.stopped) {
      // Finished for good (restartPolicy Never/OnFailure): nothing restarts; leftovers are stopped.
      this.stopped = true;
      await this.stopEverything(this.gracePeriodMs());
      await this.reportStatus();
    }
    if (this.stopped && this.processes.size === 0 && this.sandbox) {
      await this.deps.runtime.stopSandbox(podRef(pod));
      this.deps.devices.release(this.uid);
      this.sandbox = undefined;
    }
    await this.save();
    return { requeueAfterMs: wake };
  }

  private async admit(): Promise<void> {
    const containers = [...(this.pod.spec.initContainers ?? []), ...this.pod.spec.containers];
    try {
      for (const container of containers) {
        for (const { resource, count } of extendedResourceRequests(container, isExtendedResource)) {
          const allocation = await this.deps.devices.allocate(this.uid, container.name, resource, count);
          (this.allocations[container.name] ??= []).push(allocation);
        }
      }
      this.admission = "admitted";
    } catch (err) {
      if (!(err instanceof AdmissionError)) throw err;
      this.deps.devices.release(this.uid);
      this.allocations = {};
      this.admission = err;
      this.deps.events.record(this.pod, "Warning", err.reason, err.message);
    }
  }

  /** Brings sandbox, volumes and containers towards the spec; returns when to look again. */
  private async runContainers(): Promise<number> {
    const notReady = (await this.ensureSandbox()) ?? (await this.ensureVolumes());
    if (notReady !== undefined) return notReady;
    const init = await this.runInitContainers();
    if (init.blocked) return init.wakeMs;
    let wake = init.wakeMs;
    for (const container of this.pod.spec.containers) {
      const record = this.recordFor(container);
      if (record.running) continue;
      if (record.everStarted && record.lastExit) {
        if (!shouldRestart(restartPolicyOf(this.pod), "regular", record.lastExit.exitCode)) {
          record.waiting = undefined;
          continue;
        }
      }
      wake = Math.min(wake, await this.startOrWait(container, "regular"));
    }
    return wake;
  }

  /**
   * Init containers in order, as kubelet runs them: a regular one must complete before the next starts, a
   * sidecar only has to be started (running, startup probe passed) and is started again whenever it exits.
   * Once a main container has started, a sidecar that is down or in back-off holds nothing up.
   */
  private async runInitContainers(): Promise<{ blocked: boolean; wakeMs: number }> {
    const initialized = this.pod.spec.containers.some((c) => this.records.get(c.name)?.everStarted);
    let wake = RESYNC_MS;
    for (const container of this.pod.spec.initContainers ?? []) {
      const record = this.recordFor(container);
      if (isRestartableInit(container)) {
        if (!record.running) wake = Math.min(wake, await this.startOrWait(container, "sidecar"));
        if (initialized || this.probeState(container.name, "sidecar").started) continue;
        return { blocked: true, wakeMs: wake };
      }
      if (record.running) return { blocked: true, wakeMs: RESYNC_MS };
      if (record.lastExit?.exitCode === 0 && !record.waiting) continue;
      if (record.lastExit && restartPolicyOf(this.pod) === "Never")
        return { blocked: true, wakeMs: RESYNC_MS };
      return { blocked: true, wakeMs: await this.startOrWait(container, "init") };
    }
    return { blocked: false, wakeMs: wake };
  }

  /**
   * Creates the sandbox once per worker (the runtime re-adopts an existing one); a delay when it failed. A
   * failed attempt is not repeated before RETRY_MS even when the pod changes meanwhile (the agent's own
   * status write, a CNI plugin's annotation): each attempt runs the CNI plugins again.
   */
  private async ensureSandbox(): Promise<number | undefined> {
    if (this.sandboxEnsured) return undefined;
    const waitMs = (this.sandboxRetryAt ?? 0) - this.now().getTime();
    if (waitMs > 0) return waitMs;
    try {
      const ref = podRef(this.pod);
      const dns = await this.deps.dns.forPod(this.pod);
      for (const warning of dns.warnings)
        this.deps.events.record(this.pod, "Warning", warning.reason, warning.message);
      this.sandbox = await this.deps.runtime.runSandbox({
        ...ref,
        hostNetwork: this.pod.spec.hostNetwork ?? false,
        dns: dns.config,
      });
      this.podIPs = this.sandbox.podIPs;
      this.sandboxEnsured = true;
    } catch (err) {
      const message = errorMessage(err);
      this.deps.events.record(
        this.pod,
        "Warning",
        "FailedCreatePodSandBox",
        `Failed to create pod sandbox: ${message}`,
      );
      this.markWaiting("ContainerCreating", message);
      this.sandboxRetryAt = this.now().getTime() + RETRY_MS;
      return RETRY_MS;
    }
    this.startTime ??= this.pod.status?.startTime ?? apiTime(this.now());
    return undefined;
  }

  /**
   * Renders the volumes (fetching objects and tokens) at most once per resync period once they are set
   * up, and hands changed contents to the runtime; a delay when they cannot be set up yet.
   */
  private async ensureVolumes(): Promise<number | undefined> {
    const now = this.now().getTime();
    if (this.volumesRenderedAt !== undefined && now - this.volumesRenderedAt < RESYNC_MS) return undefined;
    try {
      const volumes = await renderVolumes({
        pod: this.pod,
        runtime: this.runtimeFacts(),
        allocatable: this.deps.allocatable(),
        objects: this.deps.objects,
        tokens: this.deps.tokens,
        resolvedClaims: this.resolvedClaims,
      });
      const fingerprint = JSON.stringify(volumes);
      if (fingerprint !== this.volumesFingerprint) {
        await this.deps.runtime.setUpVolumes(podRef(this.pod), volumes).catch((err: unknown) => {
          // The runtime's refusals (a hostPath of the wrong type, ...) wait like a missing object does.
          if (err instanceof VolumeSetUpError) throw err;
          throw new VolumeSetUpError("", errorMessage(err), true);
        });
        this.volumesFingerprint = fingerprint;
      }
      this.volumesRenderedAt = now;
      return undefined;
    } catch (err) {
      if (err instanceof VolumeSetUpError) {
        this.deps.events.record(this.pod, "Warning", "FailedMount", err.message);
        this.markWaiting("ContainerCreating", err.message);
        return RETRY_MS;
      }
      if (err instanceof UnsupportedVolumeError) {
        this.deps.events.record(this.pod, "Warning", "Failed", `Error: ${err.message}`);
        this.markWaiting("CreateContainerConfigError", err.message);
        return RESYNC_MS;
      }
      throw err;
    }
  }

  private recordFor(container: Container): ContainerRecord {
    let record = this.records.get(container.name);
    if (!record) {
      record = newRecord(container.name, container.image ?? "");
      const isInit = (this.pod.spec.initContainers ?? []).some((c) => c.name === container.name);
      if (!isInit && (this.pod.spec.initContainers ?? []).length > 0)
        record.waiting = { reason: "PodInitializing" };
      this.records.set(container.name, record);
    }
    return record;
  }

  /** Shows every container that is not running as waiting for `reason` (sandbox/volume problems). */
  private markWaiting(reason: string, message: string): void {
    for (const container of [...(this.pod.spec.initContainers ?? []), ...this.pod.spec.containers]) {
      const record = this.recordFor(container);
      if (!record.running && !(record.lastExit && !record.waiting)) record.waiting = { reason, message };
    }
  }

  /** Starts the container unless something holds it; returns when to look at it again. */
  private async startOrWait(container: Container, kind: ContainerKind): Promise<number> {
    const result = await startOrWait(this.deps, {
      pod: this.pod,
      container,
      record: this.recordFor(container),
      kind,
      runtimeFacts: this.runtimeFacts(),
      allocations: this.allocations[container.name] ?? [],
    });
    if ("process" in result) {
      this.watch(container.name, result.process);
      return RESYNC_MS;
    }
    return result.waitMs;
  }

  // ---- running containers ----

  private runtimeFacts() {
    return { podIPs: this.podIPs, hostIPs: [this.deps.nodeIP] };
  }

  private watch(name: string, process: ContainerProcess): void {
    this.processes.set(name, process);
    const container = this.probedContainer(name);
    if (container && (container.readinessProbe || container.livenessProbe || container.startupProbe)) {
      const probes = new ContainerProbes(
        {
          ...(container.startupProbe ? { startup: container.startupProbe } : {}),
          ...(container.readinessProbe ? { readiness: container.readinessProbe } : {}),
          ...(container.livenessProbe ? { liveness: container.livenessProbe } : {}),
        },
        { containerID: process.id, podIP: this.podIPs[0] ?? this.deps.nodeIP, container },
        this.deps.probeRunner,
        {
          changed: () => this.deps.enqueue(this.uid),
          failed: (_kind, message) =>
            this.deps.events.record(
              this.pod,
              "Warning",
              "Unhealthy",
              message,
              containerFieldPath(this.pod, name),
            ),
          unhealthy: (kind) => {
            this.deps.events.record(
              this.pod,
              "Normal",
              "Killing",
              `Container ${name} failed ${kind.toLowerCase()} probe, will be restarted`,
              containerFieldPath(this.pod, name),
            );
            void this.deps.runtime.stopContainer(process.id, this.gracePeriodMs());
          },
        },
      );
      this.probes.set(name, probes);
    }
    process.exited.then(
      (exit) => this.onExit(name, process, exit),
      (err: unknown) => {
        this.deps.log.error({ err, pod: this.name, container: name }, "lost track of a container process");
        this.onExit(name, process, { exitCode: 255, finishedAt: this.now() });
      },
    );
  }

  /** The container whose probes run: a main container or a sidecar (regular init containers have none). */
  private probedContainer(name: string): Container | undefined {
    const sidecars = (this.pod.spec.initContainers ?? []).filter(isRestartableInit);
    return [...this.pod.spec.containers, ...sidecars].find((c) => c.name === name);
  }

  private onExit(name: string, process: ContainerProcess, exit: ExitStatus): void {
    if (this.processes.get(name) !== process) return;
    this.processes.delete(name);
    this.probes.get(name)?.stop();
    this.probes.delete(name);
    const record = this.records.get(name);
    if (record) this.recordExit(record, exit);
    this.deps.enqueue(this.uid);
  }

  private recordExit(record: ContainerRecord, exit: ExitStatus, reason?: string): void {
    const running = record.running;
    record.running = undefined;
    record.waiting = undefined;
    const container = [...(this.pod.spec.initContainers ?? []), ...this.pod.spec.containers].find(
      (c) => c.name === record.name,
    );
    let message: string | undefined;
    if (container?.terminationMessagePolicy === "FallbackToLogsOnError" && exit.exitCode !== 0) {
      message = lastLogLines(this.deps.runtime.logPath(podRef(this.pod), record.name, running?.attempt ?? 0));
    }
    pushExit(record, {
      attempt: running?.attempt ?? record.restartCount,
      exitCode: exit.exitCode,
      ...(exit.signal ? { signal: exit.signal } : {}),
      reason: reason ?? exitReason(exit.exitCode),
      ...(message ? { message } : {}),
      startedAt: running?.startedAt ?? NEVER_STARTED,
      finishedAt: apiTime(exit.finishedAt),
      containerID: running?.containerID ?? "",
    });
  }

  // ---- status ----

  private probeState(name: string, kind: ContainerKind): { ready: boolean; started: boolean } {
    const record = this.records.get(name);
    if (kind === "init") {
      const done = Boolean(record && phaseOf(record) === "terminated" && record.lastExit?.exitCode === 0);
      return { ready: done, started: Boolean(record?.running) };
    }
    if (!record?.running) return { ready: false, started: false };
    const probes = this.probes.get(name);
    return { ready: probes ? probes.ready : true, started: probes ? probes.started : true };
  }

  /** Computes the pod status from the records and patches it when it changed; returns the phase. */
  private async reportStatus(podIsTerminal = false): Promise<string> {
    const statusOf = (c: Container) =>
      toContainerStatus(this.recordFor(c), this.probeState(c.name, containerKind(this.pod, c.name)));
    const { phase, status } = buildPodStatus({
      pod: this.pod,
      initContainerStatuses: (this.pod.spec.initContainers ?? []).map(statusOf),
      containerStatuses: this.pod.spec.containers.map(statusOf),
      podIsTerminal,
      ...(this.admission instanceof AdmissionError ? { rejected: this.admission } : {}),
      sandboxReady: Boolean(this.sandbox),
      nodeIP: this.deps.nodeIP,
      podIPs: this.podIPs,
      ...(this.startTime ? { startTime: this.startTime } : {}),
      now: apiTime(this.now()),
    });
    const serialized = JSON.stringify(status);
    if (serialized !== this.lastStatus) {
      try {
        this.pod = await this.deps.client.patchPodStatus(this.namespace, this.name, { status });
        this.lastStatus = serialized;
      } catch (err) {
        this.deps.log.warn({ err, pod: this.name }, "pod status patch failed");
        this.deps.enqueue(this.uid, RETRY_MS);
      }
    }
    return phase;
  }

  // ---- termination ----

  private gracePeriodMs(): number {
    const seconds =
      this.pod.metadata.deletionGracePeriodSeconds ??
      this.pod.spec.terminationGracePeriodSeconds ??
      DEFAULT_GRACE_SECONDS;
    return Math.max(seconds, MIN_GRACE_SECONDS) * 1000;
  }

  /**
   * Stops every running container: the main ones (and a running init container) together, then the
   * sidecars one by one, last declared first, with what is left of the grace period (kubelet's order).
   */
  private async stopEverything(graceMs: number): Promise<void> {
    for (const probes of this.probes.values()) probes.stop();
    this.probes.clear();
    const deadline = Date.now() + graceMs;
    const sidecars = (this.pod.spec.initContainers ?? []).filter(isRestartableInit).map((c) => c.name);
    const others = [...this.processes.keys()].filter((name) => !sidecars.includes(name));
    await Promise.all(others.map((name) => this.stopContainer(name, graceMs)));
    for (const name of sidecars.reverse()) {
      await this.stopContainer(name, Math.max(deadline - Date.now(), MIN_GRACE_SECONDS * 1000));
    }
  }

  private async stopContainer(name: string, graceMs: number): Promise<void> {
    const process = this.processes.get(name);
    if (!process) return;
    this.deps.events.record(
      this.pod,
      "Normal",
      "Killing",
      `Stopping container ${name}`,
      containerFieldPath(this.pod, name),
    );
    await this.deps.runtime.stopContainer(process.id, graceMs);
    await process.exited.catch(() => undefined);
  }

  private async terminateAndDelete(): Promise<SyncOutcome> {
    this.stopped = true;
    await this.stopEverything(this.gracePeriodMs());
    await this.reportStatus(true);
    await this.cleanUp();
    this.finished = true;
    await this.deps.client.deletePodNow(this.namespace, this.name, this.uid);
    // The worker stays until the pod is seen gone, so a late event cannot start the pod over.
    return { requeueAfterMs: RETRY_MS };
  }

  /** The pod vanished from the apiserver (force deletion): stop and clean up without reporting. */
  private async forget(): Promise<SyncOutcome> {
    this.stopped = true;
    await this.stopEverything(this.gracePeriodMs());
    await this.cleanUp();
    this.finished = true;
    return { done: true };
  }

  private async cleanUp(): Promise<void> {
    await this.deps.runtime.removePod(podRef(this.pod));
    this.deps.devices.release(this.uid);
    this.deps.tokens.forget(this.uid);
    this.deps.crashBackoff.forget(`${this.uid}/`);
    this.deps.imageBackoff.forget(`${this.uid}/`);
    await this.deps.store.remove(this.uid);
  }

  private async save(): Promise<void> {
    const state: PodState = {
      uid: this.uid,
      namespace: this.namespace,
      name: this.name,
      ...(this.startTime ? { startTime: this.startTime } : {}),
      podIPs: this.podIPs,
      containers: [...this.records.values()],
      allocations: this.allocations,
    };
    const serialized = JSON.stringify(state);
    if (serialized === this.lastSaved) return;
    await this.deps.store.save(state);
    this.lastSaved = serialized;
  }
}
