import type { RestRequest, StreamRequest, Transport } from "../rest.js";

type Responder = (req: RestRequest) => unknown;

/** A Transport that records every request and answers from a function; streams replay fixed lines. */
export class RecordingTransport implements Transport {
  readonly requests: RestRequest[] = [];
  readonly streams: StreamRequest[] = [];
  streamLines: unknown[] = [];

  constructor(private readonly respond: Responder = (req) => req.body ?? {}) {}

  async request(req: RestRequest): Promise<unknown> {
    this.requests.push(req);
    return this.respond(req);
  }

  async stream(req: StreamRequest, onLine: (value: unknown) => void): Promise<void> {
    this.streams.push(req);
    for (const line of this.streamLines) {
      if (req.signal?.aborted) return;
      onLine(line);
    }
  }
}
