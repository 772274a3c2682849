import type { Duplex } from "node:stream";
import {
  ImagePullError,
  type ContainerProcess,
  type ContainerRequest,
  type ExecResult,
  type ExecStreams,
  type ExitStatus,
  type ImageRef,
  type PodRef,
  type PodRuntime,
  type RecoveredContainer,
  type Sandbox,
  type SandboxRequest,
  type VolumeRequest,
} from "./pod-runtime.js";

// An in-memory PodRuntime for unit tests: processes are promises the test ends with `exit`, stopping
// honours a "stubborn" flag (ignores SIGTERM, dies at the end of the grace period), and every call is
// recorded.

export const KNOWN_IMAGES = ["busybox", "busybox:1.36", "quay.io/kubevirt/virt-launcher:v1.6.0"];

interface FakeProcess extends ContainerProcess {
  request: ContainerRequest;
  finish: (exit: ExitStatus) => void;
  done: boolean;
}

export class FakePodRuntime implements PodRuntime {
  readonly sandboxes = new Map<string, Sandbox>();
  readonly volumes = new Map<string, VolumeRequest[]>();
  readonly processes: FakeProcess[] = [];
  readonly stops: { id: string; graceMs: number }[] = [];
  readonly removed: string[] = [];
  readonly stoppedSandboxes: string[] = [];
  /** The last sandbox request per pod UID (its DNS config, host network). */
  readonly sandboxRequests = new Map<string, SandboxRequest>();
  /** runSandbox calls so far, and the error the next ones throw (a CNI failure) while set. */
  sandboxAttempts = 0;
  sandboxFailure: Error | undefined;
  /** Containers whose processes ignore SIGTERM. */
  readonly stubborn = new Set<string>();
  recovered: RecoveredContainer[] = [];
  recoveredPods: PodRef[] = [];
  execResult: ExecResult = { exitCode: 0, output: "" };
  now: () => Date = () => new Date();
  private nextIP = 10;
  private nextID = 1;

  async runSandbox(req: SandboxRequest): Promise<Sandbox> {
    this.sandboxRequests.set(req.uid, req);
    this.sandboxAttempts += 1;
    if (this.sandboxFailure) throw this.sandboxFailure;
    const existing = this.sandboxes.get(req.uid);
    if (existing) return existing;
    const sandbox = { podIPs: [req.hostNetwork ? "10.244.1.1" : `10.244.1.${this.nextIP++}`] };
    this.sandboxes.set(req.uid, sandbox);
    return sandbox;
  }

  async stopSandbox(pod: PodRef): Promise<void> {
    this.stoppedSandboxes.push(pod.uid);
    this.sandboxes.delete(pod.uid);
  }

  async setUpVolumes(pod: PodRef, volumes: VolumeRequest[]): Promise<void> {
    this.volumes.set(pod.uid, volumes);
  }

  async removePod(pod: PodRef): Promise<void> {
    this.removed.push(pod.uid);
    this.sandboxes.delete(pod.uid);
    this.volumes.delete(pod.uid);
  }

  async pullImage(image: string): Promise<ImageRef> {
    if (!KNOWN_IMAGES.includes(image)) {
      throw new ImagePullError(`failed to pull image "${image}": not in the kubevirt-ts image store`);
    }
    return { image, imageID: `kvts-image://${image}` };
  }

  async startContainer(request: ContainerRequest): Promise<ContainerProcess> {
    if (request.command?.[0] === "/does/not/exist") {
      throw new Error(`exec: "/does/not/exist": stat /does/not/exist: no such file or directory`);
    }
    let finish: (exit: ExitStatus) => void = () => {};
    const exited = new Promise<ExitStatus>((resolve) => (finish = resolve));
    const process: FakeProcess = {
      id: `c${this.nextID++}`,
      pid: 1000 + this.nextID,
      startedAt: this.now(),
      exited,
      request,
      done: false,
      finish: (exit) => {
        if (process.done) return;
        process.done = true;
        finish(exit);
      },
    };
    this.processes.push(process);
    return process;
  }

  /** Ends the latest instance of a container with an exit code. */
  exit(container: string, exitCode: number): void {
    const process = [...this.processes].reverse().find((p) => p.request.name === container && !p.done);
    if (!process) throw new Error(`no running instance of ${container}`);
    process.finish({ exitCode, finishedAt: this.now() });
  }

  running(container: string): FakeProcess | undefined {
    return [...this.processes].reverse().find((p) => p.request.name === container && !p.done);
  }

  async stopContainer(id: string, gracePeriodMs: number): Promise<void> {
    this.stops.push({ id, graceMs: gracePeriodMs });
    const process = this.processes.find((p) => p.id === id);
    if (!process || process.done) return;
    if (this.stubborn.has(process.request.name)) {
      await new Promise((r) => setTimeout(r, gracePeriodMs));
      process.finish({ exitCode: 137, signal: "SIGKILL", finishedAt: this.now() });
    } else {
      process.finish({ exitCode: 143, signal: "SIGTERM", finishedAt: this.now() });
    }
  }

  async exec(): Promise<ExecResult> {
    return this.execResult;
  }

  /** Streaming exec: records the call and answers with execResult's exit code, echoing stdin to stdout. */
  readonly streamExecs: { id: string; command: string[] }[] = [];
  async execStream(id: string, command: string[], io: ExecStreams): Promise<number> {
    this.streamExecs.push({ id, command });
    if (io.stdin && io.stdout) for await (const chunk of io.stdin) io.stdout.write(chunk as Buffer);
    io.stdout?.write(this.execResult.output);
    return this.execResult.exitCode;
  }

  /** Port-forward: echoes what the client sends, as a server in the pod would. */
  async portForward(_id: string, _port: number, stream: Duplex): Promise<void> {
    stream.pipe(stream);
    await new Promise((resolve) => stream.once("end", resolve));
  }

  logPath(pod: PodRef, container: string, attempt: number): string {
    return `/nonexistent/var/log/pods/${pod.namespace}_${pod.name}_${pod.uid}/${container}/${attempt}.log`;
  }

  /** The configured leftovers, plus every process still running (as after an agent restart). */
  async recoverContainers(): Promise<RecoveredContainer[]> {
    const live = this.processes
      .filter((p) => !p.done)
      .map((p) => ({
        pod: p.request.pod,
        name: p.request.name,
        attempt: p.request.attempt,
        id: p.id,
        process: p,
      }));
    return [...this.recovered, ...live];
  }

  async recoverPods(): Promise<PodRef[]> {
    return this.recoveredPods;
  }
}
