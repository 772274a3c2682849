// virt-controller replicas run in the test process against the real apiserver, scoped to one namespace,
// with short leader-election timings so a kill and a takeover fit in a test.
import { pino } from "pino";
import type { KubeClient } from "../../pkg/controller/client.js";
import { TestLauncherSettings } from "../../pkg/virt-controller/testing/controller-env.js";
import { VirtControllerApp } from "../../pkg/virt-controller/watch/application.js";

export interface ControllerReplica {
  stop: AbortController;
  done: Promise<void>;
}

export class ControllerReplicas {
  private readonly running: ControllerReplica[] = [];
  private readonly logger = pino({ level: "error" });

  constructor(
    private readonly client: () => KubeClient,
    private readonly namespace: string,
  ) {}

  /** One more replica, named `identity` in the Lease. */
  start(identity: string): ControllerReplica {
    const app = new VirtControllerApp({
      client: this.client(),
      namespace: this.namespace,
      identity,
      launcher: TestLauncherSettings,
      vmWorkers: 2,
      vmiWorkers: 2,
      rsWorkers: 2,
      poolWorkers: 2,
      // The cluster's nodes have no virt-handler beating here: the node controller would read them as
      // unresponsive and fail the stub VMIs (test/integration/node-controller.test.ts tests it alone).
      nodeWorkers: 0,
      logger: this.logger,
      leaderElection: { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 },
      watchNamespace: this.namespace,
    });
    const stop = new AbortController();
    const replica = { stop, done: app.run(stop.signal) };
    this.running.push(replica);
    return replica;
  }

  async stop(replica: ControllerReplica): Promise<void> {
    replica.stop.abort();
    await replica.done;
  }

  /** Every replica started, whatever state it is in. */
  async stopAll(): Promise<void> {
    for (const replica of this.running) replica.stop.abort();
    await Promise.all(this.running.map((replica) => replica.done.catch(() => undefined)));
  }
}
