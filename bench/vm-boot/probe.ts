import { BenchError } from "../common/bench-error.js";

// When a guest's serial console answers, measured the same way for the VM and for the bare QEMU: Enter
// is pressed every POKE_MS until the test guest's root prompt shows (a console opened late sees no
// prompt until then), then a command is typed whose answer the echo of the typed line cannot match,
// and which also prints the guest's own uptime: how much of the time the guest itself took to boot.

/** The test guest's login-free root shell (deploy/local/guest/README.md). */
export const PROMPT = /root@[\w-]+:~# /;
export const POKE_MS = 250;
/** Prints kvts-42-<seconds since the guest booted>; the typed line reads kvts-$((6*7))-$(...). */
export const ANSWER_COMMAND = `echo "kvts-$((6*7))-$(cut -d' ' -f1 /proc/uptime)"\r`;
export const ANSWER = /kvts-42-(\d+(?:\.\d+)?)/;

export interface ConsoleMatch {
  match: RegExpExecArray;
  /** The transcript offset just after the match. */
  end: number;
  /** performance.now() when it was seen. */
  atMs: number;
}

/** A serial console as both kinds of boot offer it. */
export interface SerialConsole {
  /** What the console printed so far. */
  readonly transcript: string;
  type(text: string): void;
  /** Resolves when `pattern` matches the transcript at or after `from`; rejects after `timeoutMs` or when the console is gone. */
  waitFor(pattern: RegExp, timeoutMs: number, from?: number): Promise<ConsoleMatch>;
}

export interface ConsoleAnswer {
  /** performance.now() when the prompt was first seen, and when the command's answer was. */
  promptAtMs: number;
  answerAtMs: number;
  /** The guest's /proc/uptime when it answered. */
  guestUptimeS: number;
}

/** Presses Enter every `pokeMs` until the prompt shows, then has the guest answer. */
export async function awaitAnswer(
  console: SerialConsole,
  timeoutMs: number,
  pokeMs = POKE_MS,
): Promise<ConsoleAnswer> {
  const poker = setInterval(() => console.type("\r"), pokeMs);
  let prompt: ConsoleMatch;
  try {
    prompt = await console.waitFor(PROMPT, timeoutMs);
  } finally {
    clearInterval(poker);
  }
  const from = console.transcript.length;
  console.type(ANSWER_COMMAND);
  const answer = await console.waitFor(ANSWER, timeoutMs, from);
  return { promptAtMs: prompt.atMs, answerAtMs: answer.atMs, guestUptimeS: parseUptime(answer.match[1]) };
}

function parseUptime(text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value)) throw new BenchError(`unreadable guest uptime ${text}`);
  return value;
}

/** A console over a growing transcript: for the implementations, event-driven, no polling. */
export class Transcript implements SerialConsole {
  transcript = "";
  private readonly waiters = new Set<() => void>();
  private endedWith: string | undefined;

  constructor(private readonly send: (text: string) => void) {}

  append(text: string): void {
    this.transcript += text;
    this.wake();
  }

  /** No more output will come: waits fail with `why`. */
  end(why: string): void {
    this.endedWith ??= why;
    this.wake();
  }

  type(text: string): void {
    this.send(text);
  }

  waitFor(pattern: RegExp, timeoutMs: number, from = 0): Promise<ConsoleMatch> {
    const sticky = new RegExp(pattern.source, pattern.flags.replace("g", "") + "g");
    return new Promise((resolve, reject) => {
      const check = (): void => {
        sticky.lastIndex = from;
        const match = sticky.exec(this.transcript);
        if (match) {
          done();
          resolve({ match, end: match.index + match[0].length, atMs: performance.now() });
        } else if (this.endedWith !== undefined) {
          done();
          reject(new BenchError(`${this.endedWith} before ${pattern} showed; console:\n${this.tail()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new BenchError(
            `no ${pattern} on the console within ${timeoutMs / 1000} s; console:\n${this.tail()}`,
          ),
        );
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private tail(): string {
    return this.transcript.slice(-1500);
  }
}
