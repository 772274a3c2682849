import { pino, type BaseLogger } from "pino";

/** The logging surface the machinery needs; any pino logger (or child logger) fits. */
export type Logger = Pick<BaseLogger, "debug" | "info" | "warn" | "error">;

export const defaultLogger: Logger = pino({ level: process.env["LOG_LEVEL"] ?? "info" });

export const silentLogger: Logger = pino({ level: "silent" });
