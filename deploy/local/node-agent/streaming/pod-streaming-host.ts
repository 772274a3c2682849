import { streamLog } from "../cri-log.js";
import type { LogLocator } from "../kubelet-server.js";
import type { ExecStreams, PodRuntime } from "../pod-runtime.js";
import type { PortForwardTarget } from "./port-forward.js";
import type { ContainerStreamTarget, StreamingHost } from "./streaming-server.js";

// The node's pods behind the streaming endpoints: the pod manager finds the running container, the
// runtime runs the exec or the forward.
//
// attach: containers here are started with their output going through FIFOs into CRI log files and their
// stdin closed (as containers without `stdin: true`), so attaching follows the running instance's output
// from now on, stdout and stderr kept apart as the log file records them, until the container stops or
// the client leaves. Whatever the client sends on stdin is read and dropped: there is no stdin to feed.

export interface ContainerFinder extends LogLocator {
  runningContainer(namespace: string, pod: string, container?: string): { id: string; podUID: string };
}

export type StreamingRuntime = Pick<PodRuntime, "execStream" | "portForward">;

const writeTo = (stream: NodeJS.WritableStream | undefined, text: string): Promise<void> =>
  new Promise((resolve) => {
    if (!stream || !stream.writable || stream.write(text)) resolve();
    else stream.once("drain", () => resolve());
  });

export class PodStreamingHost implements StreamingHost {
  constructor(
    private readonly pods: ContainerFinder,
    private readonly runtime: StreamingRuntime,
  ) {}

  container(namespace: string, pod: string, container: string): ContainerStreamTarget {
    const { id } = this.pods.runningContainer(namespace, pod, container);
    return {
      exec: (command, io) => this.runtime.execStream(id, command, io),
      attach: (io) => this.attach(namespace, pod, container, io),
    };
  }

  pod(namespace: string, pod: string): PortForwardTarget {
    const { id, podUID } = this.pods.runningContainer(namespace, pod);
    return { pod, uid: podUID, forward: (port, stream) => this.runtime.portForward(id, port, stream) };
  }

  private async attach(namespace: string, pod: string, container: string, io: ExecStreams): Promise<void> {
    const file = this.pods.locate(namespace, pod, container, false);
    io.stdin?.resume();
    const abort = new AbortController();
    const stop = () => abort.abort();
    io.signal?.addEventListener("abort", stop, { once: true });
    try {
      await streamLog(
        file.path,
        { follow: true, previous: false, timestamps: false, tailLines: 0 },
        {
          write: (text, stream) => writeTo(stream === "stderr" && !io.tty ? io.stderr : io.stdout, text),
        },
        { isRunning: () => file.isRunning(), signal: abort.signal, pollMs: 100 },
      );
    } finally {
      io.signal?.removeEventListener("abort", stop);
    }
  }
}
