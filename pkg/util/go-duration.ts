// Go's time.Duration text, as metav1.Duration carries it in the KubeVirt CR ("24h", "1h30m") and as
// upstream records certificate validity in annotations ("24h0m0s").

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration string into milliseconds; throws on anything Go's time.ParseDuration refuses. */
export function parseGoDuration(text: string): number {
  const match = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.test(text) || text === "0";
  if (!match) throw new Error(`time: invalid duration "${text}"`);
  if (text === "0") return 0;
  const sign = text.startsWith("-") ? -1 : 1;
  let total = 0;
  for (const part of text.replace(/^[-+]/, "").matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (UNIT_MS[part[2] ?? ""] ?? 0);
  }
  return sign * total;
}

function trimFraction(value: number): string {
  return value.toFixed(9).replace(/\.?0+$/, "");
}

/** Formats milliseconds like Go's Duration.String(): "168h0m0s", "1m30s", "1.5s", "0s". */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  const abs = Math.abs(ms);
  if (abs < 1000) {
    if (abs >= 1) return `${sign}${trimFraction(abs)}ms`;
    if (abs >= 1e-3) return `${sign}${trimFraction(abs * 1e3)}µs`;
    return `${sign}${Math.round(abs * 1e6)}ns`;
  }
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const seconds = trimFraction((abs % 60_000) / 1000);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}
