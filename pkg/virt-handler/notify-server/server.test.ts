import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../controller/index.js";
import { NotifyClient } from "../../handler-launcher-com/notify/v1/client.js";
import type { DomainObject } from "../../virt-launcher/virtwrap/api/domain-object.js";
import { domainToJSON } from "../../virt-launcher/virtwrap/api/domain-json.js";
import { DomainNotifyServer, domainNotifySocketPath } from "./server.js";

// The launcher's real Notify client against the handler's server over a unix socket.
describe("DomainNotifyServer", () => {
  let dir: string;
  let server: DomainNotifyServer;
  let client: NotifyClient | undefined;
  const events: [string, string][] = [];

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "n"));
    server = new DomainNotifyServer({
      onDomainEvent: (key, type) => events.push([key, type]),
      logger: silentLogger,
    });
    await server.start(domainNotifySocketPath(dir));
    client = await NotifyClient.connect(domainNotifySocketPath(dir), 5_000);
  });

  afterEach(async () => {
    client?.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("turns a domain event into the key of the VMI to look at", async () => {
    const domain = {
      objectMeta: { name: "testvmi", namespace: "default" },
      spec: { type: "kvm", name: "default_testvmi" },
      status: { status: "Running", reason: "Unknown" },
    } as unknown as DomainObject;
    const reply = await client?.call(
      "HandleDomainEvent",
      { domainJSON: Buffer.from(domainToJSON(domain)), eventType: "MODIFIED" },
      5_000,
    );
    expect(reply).toEqual({ success: true, message: "" });
    expect(events).toEqual([["default/testvmi", "MODIFIED"]]);
  });

  it("answers a malformed event with success=false instead of failing the call", async () => {
    const reply = await client?.call(
      "HandleDomainEvent",
      { domainJSON: Buffer.from("{not json"), eventType: "ADDED" },
      5_000,
    );
    expect(reply?.success).toBe(false);
    expect(reply?.message).not.toBe("");
  });
});
