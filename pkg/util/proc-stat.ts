// /proc/<pid>/stat, parsed once for the whole suite: the command name sits in parentheses and may itself
// hold spaces and parentheses, so the fields are counted from the last ")".

export interface StatFields {
  comm: string;
  state: string;
  ppid: number;
  /** Field 22: start time in clock ticks since boot (PID + start time identify a process). */
  startTicks: number;
}

export function parseStat(text: string): StatFields {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) throw new Error("unreadable /proc/<pid>/stat");
  const rest = text.slice(close + 2).split(" ");
  // rest[0] is field 3 (state), so field N is rest[N - 3].
  const ppid = Number(rest[4 - 3]);
  const startTicks = Number(rest[22 - 3]);
  if (!Number.isInteger(ppid) || !Number.isInteger(startTicks))
    throw new Error("unreadable /proc/<pid>/stat");
  return { comm: text.slice(open + 1, close), state: rest[0] ?? "", ppid, startTicks };
}
