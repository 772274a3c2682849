// Writing container output in the CRI log format kubelet reads (`kubectl logs`):
//   <RFC3339Nano timestamp> <stdout|stderr> <F|P> <content>
// one record per line; a line longer than the runtime's maximum is cut into partial (P) records, the last
// piece of each line is full (F). Timestamps are UTC with nanoseconds, trailing zeros trimmed, as Go's
// time.RFC3339Nano prints them.

export type LogStream = "stdout" | "stderr";

/** containerd's default max_container_log_line_size. */
export const MAX_LOG_LINE_BYTES = 16 * 1024;

const NANOS_PER_SECOND = 1_000_000_000n;

/** Formats nanoseconds since the epoch like Go's time.RFC3339Nano in UTC. */
export function formatRfc3339Nano(epochNanos: bigint): string {
  const seconds = epochNanos / NANOS_PER_SECOND;
  const nanos = epochNanos % NANOS_PER_SECOND;
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  const fraction = nanos === 0n ? "" : `.${nanos.toString().padStart(9, "0").replace(/0+$/, "")}`;
  return `${base}${fraction}Z`;
}

/** A wall clock with nanosecond resolution: the epoch at start plus the monotonic clock since. */
export function createNanoClock(): () => bigint {
  const startHr = process.hrtime.bigint();
  const startEpoch = BigInt(Date.now()) * 1_000_000n;
  return () => startEpoch + (process.hrtime.bigint() - startHr);
}

export function formatLogRecord(
  epochNanos: bigint,
  stream: LogStream,
  partial: boolean,
  content: Buffer,
): Buffer {
  const prefix = `${formatRfc3339Nano(epochNanos)} ${stream} ${partial ? "P" : "F"} `;
  return Buffer.concat([Buffer.from(prefix), content, Buffer.from("\n")]);
}

/** Splits one stream's output into CRI records, holding back an unfinished line until it ends. */
export class CriLineSplitter {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly stream: LogStream,
    private readonly clock: () => bigint,
    private readonly maxLineBytes = MAX_LOG_LINE_BYTES,
  ) {}

  /** Records for the complete lines (and oversized pieces) in `chunk`. */
  push(chunk: Buffer): Buffer[] {
    this.pending = Buffer.concat([this.pending, chunk]);
    const records: Buffer[] = [];
    for (;;) {
      const newline = this.pending.indexOf(0x0a);
      if (newline !== -1 && newline <= this.maxLineBytes) {
        records.push(this.record(this.pending.subarray(0, newline), false));
        this.pending = this.pending.subarray(newline + 1);
      } else if (this.pending.length > this.maxLineBytes) {
        records.push(this.record(this.pending.subarray(0, this.maxLineBytes), true));
        this.pending = this.pending.subarray(this.maxLineBytes);
      } else {
        return records;
      }
    }
  }

  /** The unfinished last line, as a full record, when the stream ends. */
  end(): Buffer[] {
    if (this.pending.length === 0) return [];
    const last = this.record(this.pending, false);
    this.pending = Buffer.alloc(0);
    return [last];
  }

  private record(content: Buffer, partial: boolean): Buffer {
    // Copy: the pending buffer is reused for what follows.
    return formatLogRecord(this.clock(), this.stream, partial, Buffer.from(content));
  }
}
