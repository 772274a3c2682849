// virt-tail's core (upstream cmd/virt-tail): follows a file the way `tail -F` does. The file may not exist
// yet (the guest's serial log appears once QEMU starts), may be truncated or replaced, and only complete
// lines are passed on; everything from the file's first byte is shown. Polling, not inotify: it also works
// on the file systems pod volumes live on, and a serial log grows slowly.
import { open, stat } from "node:fs/promises";

export interface FollowOptions {
  /** How long to wait between looks at the file. */
  pollMs?: number;
  /** Upper bound of one read, so a huge file is passed on in pieces. */
  chunkBytes?: number;
}

interface Position {
  dev: number;
  ino: number;
  offset: number;
}

const DEFAULT_POLL_MS = 250;
const DEFAULT_CHUNK_BYTES = 64 * 1024;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export class LineFollower {
  private position: Position | undefined;
  private partial = Buffer.alloc(0);
  private readonly pollMs: number;
  private readonly chunkBytes: number;

  constructor(
    private readonly file: string,
    private readonly emit: (line: string) => void,
    options: FollowOptions = {},
  ) {
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  }

  /** Follows until the signal aborts; resolves then, whatever was or was not read. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const grew = await this.poll();
      if (!grew) await sleep(this.pollMs, signal);
    }
  }

  /** One look at the file: passes on the complete lines written since the last look; true when any bytes came. */
  async poll(): Promise<boolean> {
    const current = await stat(this.file).catch(() => undefined);
    if (!current?.isFile()) return false;
    const known = this.position;
    if (!known || known.dev !== current.dev || known.ino !== current.ino || current.size < known.offset) {
      // A new file, a replaced one or a truncated one: start over at its beginning.
      this.position = { dev: current.dev, ino: current.ino, offset: 0 };
      this.partial = Buffer.alloc(0);
    }
    const position = this.position as Position;
    if (current.size === position.offset) return false;
    const handle = await open(this.file, "r").catch(() => undefined);
    if (!handle) return false;
    try {
      const length = Math.min(current.size - position.offset, this.chunkBytes);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position.offset);
      position.offset += bytesRead;
      this.take(buffer.subarray(0, bytesRead));
      return bytesRead > 0;
    } finally {
      await handle.close();
    }
  }

  private take(bytes: Buffer): void {
    let data = Buffer.concat([this.partial, bytes]);
    for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a)) {
      this.emit(data.subarray(0, end).toString("utf8").replace(/\r$/, ""));
      data = data.subarray(end + 1);
    }
    this.partial = Buffer.from(data);
  }
}
