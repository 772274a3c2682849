import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../controller/log.js";
import { WatchEventType } from "../../handler-launcher-com/notify/v1/messages.js";
import { nonExistentDomain } from "../virtwrap/domain-reader.js";
import { MetadataCache } from "../virtwrap/metadata-cache.js";
import { Notifier } from "./notifier.js";
import type { RecordingNotifyServer } from "./testing.js";
import { startRecordingNotifyServer } from "./testing.js";

const FAST = { intervalMs: 50, sendMs: 1_000, totalMs: 1_500, connectMs: 100 };

function domain() {
  const metadata = new MetadataCache();
  metadata.setUID("uid-1");
  return nonExistentDomain("default_testvmi", metadata);
}

let server: RecordingNotifyServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("Notifier", () => {
  it("sends a domain event as api.Domain JSON with its watch event type", async () => {
    server = await startRecordingNotifyServer();
    const notifier = new Notifier(server.socketPath, silentLogger, FAST);
    await notifier.sendDomainEvent(WatchEventType.Modified, domain());
    notifier.close();
    expect(server.domainEvents).toHaveLength(1);
    expect(server.domainEvents[0]?.type).toBe("MODIFIED");
    expect(server.domainEvents[0]?.domain.objectMeta).toEqual({
      name: "testvmi",
      namespace: "default",
      uid: "uid-1",
    });
    expect(JSON.parse(server.domainEvents[0]?.json ?? "").Status).toMatchObject({
      Status: "NoState",
      Reason: "NonExistent",
    });
  });

  it("sends a Kubernetes event about the VMI", async () => {
    server = await startRecordingNotifyServer();
    const notifier = new Notifier(server.socketPath, silentLogger, FAST);
    await notifier.sendK8sEvent(
      { name: "testvmi", namespace: "default", uid: "uid-1" },
      "Warning",
      "IOerror",
      "VM Paused",
    );
    notifier.close();
    expect(server.k8sEvents).toEqual([
      expect.objectContaining({
        type: "Warning",
        reason: "IOerror",
        message: "VM Paused",
        involvedObject: expect.objectContaining({
          kind: "VirtualMachineInstance",
          name: "testvmi",
          uid: "uid-1",
        }),
      }),
    ]);
  });

  it("keeps retrying until the handler's socket appears", async () => {
    const socketPath = join(mkdtempSync(join(tmpdir(), "kvts-notify-")), "domain-notify-pipe.sock");
    const notifier = new Notifier(socketPath, silentLogger, FAST);
    const sending = notifier.sendDomainEvent(WatchEventType.Added, domain());
    await sleep(300);
    server = await startRecordingNotifyServer({ socketPath });
    await sending;
    expect(server.domainEvents.map((event) => event.type)).toEqual(["ADDED"]);
    notifier.close();
  });

  it("fails after the total timeout when the handler never appears", async () => {
    const socketPath = join(mkdtempSync(join(tmpdir(), "kvts-notify-")), "missing.sock");
    const notifier = new Notifier(socketPath, silentLogger, FAST);
    await expect(notifier.sendDomainEvent(WatchEventType.Added, domain())).rejects.toThrow(
      /^failed to notify domain event: failed to dial/,
    );
  });

  it("does not retry a failure the handler reported in its response", async () => {
    let calls = 0;
    server = await startRecordingNotifyServer({
      answer: () => {
        calls += 1;
        return { success: false, message: "vmi not found" };
      },
    });
    const notifier = new Notifier(server.socketPath, silentLogger, FAST);
    await expect(notifier.sendDomainEvent(WatchEventType.Modified, domain())).rejects.toThrow(
      "failed to notify domain event: vmi not found",
    );
    expect(calls).toBe(1);
    notifier.close();
  });

  it("gives up queued sends once closed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvts-notify-"));
    const notifier = new Notifier(join(dir, "missing.sock"), silentLogger, { ...FAST, totalMs: 60_000 });
    const pending = notifier.sendDomainEvent(WatchEventType.Modified, domain());
    notifier.close();
    await expect(pending).rejects.toThrow(/closed|failed to dial/);
  });
});
