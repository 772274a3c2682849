import { pino } from "pino";

// One JSON logger for the agent, tagged with the component and node so two agents' logs stay apart.

export type Logger = pino.Logger;

export function createLogger(node: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({ level, base: { component: "kvts-node-agent", node } });
}

/** A logger that drops everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
