// The line each benchmark prints with its figures, which gives the same run again when pasted into a
// POSIX shell, and the durations its options take.

/** A word as a POSIX shell reads it back. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `npx tsx <script> <args...>`, each word quoted as needed. */
export function commandLine(script: string, args: readonly string[]): string {
  return ["npx", "tsx", script, ...args].map(shellQuote).join(" ");
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** "30s", "500ms", "2m" or "1.5s" in milliseconds; undefined for anything else (a bare number too). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** Milliseconds back as parseDuration reads them: whole seconds as "30s", the rest as "1500ms". */
export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
