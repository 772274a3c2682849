// The in-memory apiserver, except that chosen requests fail: what upstream's controller tests get by
// prepending failing reactors to a fake clientset.
import { ApiError } from "../api-error.js";
import type { RestRequest, StreamRequest, Transport } from "../rest.js";
import type { FakeApiServer } from "./fake-apiserver.js";

interface Fault {
  method: RestRequest["method"];
  resource: string;
  /** Which matching request fails, counting from 1; 0: every one. */
  nth: number;
  seen: number;
  error: unknown;
}

export class FaultyTransport implements Transport {
  private readonly faults: Fault[] = [];

  constructor(private readonly server: FakeApiServer) {}

  /** The nth request (0: every one) of `method` on a path naming `resource` fails with `error` (a 500). */
  failNth(method: RestRequest["method"], resource: string, nth: number, error?: unknown): void {
    this.faults.push({ method, resource, nth, seen: 0, error: error ?? new ApiError(500, "", "failure") });
  }

  async request(req: RestRequest): Promise<unknown> {
    for (const fault of this.faults) {
      if (fault.method !== req.method || !req.path.split("/").includes(fault.resource)) continue;
      if (++fault.seen === fault.nth || fault.nth === 0) throw fault.error;
    }
    return this.server.request(req);
  }

  stream(req: StreamRequest, onLine: (value: unknown) => void): Promise<void> {
    return this.server.stream(req, onLine);
  }
}
