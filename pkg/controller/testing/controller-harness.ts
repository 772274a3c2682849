// What the hand-driven controller tests share: an event recorder that keeps `<type> <reason> <message>`
// lines, informers started and synced against the in-memory apiserver, and a look at what their
// handlers queued without running a worker.
import type { EventType } from "../event-types.js";
import type { EventRecorder } from "../events.js";
import type { Informer } from "../informer.js";
import type { KubeObject } from "../object.js";
import type { WorkQueue } from "../workqueue.js";
import { KubeClient } from "../client.js";
import { FakeApiServer } from "./fake-apiserver.js";
import { FaultyTransport } from "./faulty-transport.js";

/**
 * A FakeApiServer and the clients a controller test needs: informers read through `informerClient`, the
 * controller writes through `client`, whose `transport` can be told to fail chosen requests; `stop` ends the
 * informers.
 */
export function fakeClusterClients(): {
  server: FakeApiServer;
  informerClient: KubeClient;
  transport: FaultyTransport;
  client: KubeClient;
  stop: AbortController;
} {
  const server = new FakeApiServer();
  const transport = new FaultyTransport(server);
  return {
    server,
    informerClient: new KubeClient(server),
    transport,
    client: new KubeClient(transport),
    stop: new AbortController(),
  };
}

export interface EventLog {
  /** `<type> <reason> <message>` of every event recorded. */
  events: string[];
  recorder: Pick<EventRecorder, "event">;
}

export function eventLog(): EventLog {
  const events: string[] = [];
  const recorder = {
    event: (_obj: KubeObject, type: EventType, reason: string, message: string) => {
      events.push(`${type} ${reason} ${message}`);
    },
  };
  return { events, recorder };
}

/** Runs the informers until the signal aborts; resolves once they synced and watch every table. */
export async function startInformers(
  server: FakeApiServer,
  informers: ReadonlyArray<Pick<Informer<KubeObject>, "run" | "waitForSync">>,
  tables: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  for (const informer of informers) void informer.run(signal);
  await Promise.all(informers.map((informer) => informer.waitForSync()));
  await Promise.all(tables.map((table) => server.untilWatching(table)));
}

/** The keys queued since the last call, once the informers got every event sent so far. */
export async function takeQueued(server: FakeApiServer, queue: WorkQueue<string>): Promise<string[]> {
  await server.settle();
  const keys: string[] = [];
  while (queue.len() > 0) {
    const key = await queue.get();
    if (key === undefined) break;
    keys.push(key);
    queue.done(key);
  }
  return keys;
}
