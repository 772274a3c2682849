import { systemClock, type Clock } from "./clock.js";

// golang.org/x/time/rate's token bucket: `burst` tokens, refilled at `qps` per second. `reserve` always
// takes a token and says how long to wait for it; `tryAccept` takes one only if available now.

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Pick<Clock, "now"> = systemClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  private refill(): void {
    const now = this.clock.now();
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
    }
  }

  /** Takes a token (possibly borrowed from the future); returns the milliseconds until it is really there. */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  tryAccept(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
