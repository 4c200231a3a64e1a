import { pino, type Logger } from "pino";

export type { Logger };

export interface LoggerOptions {
  /**
   * Lines for a person at a terminal (pino-pretty, pino's own transport, in a worker thread):
   * what the standalone server and createThreadline() choose when stdout is a TTY. Otherwise one
   * JSON object per line, what log collectors read. Rejected: a formatter of our own.
   */
  pretty?: boolean;
}

export function createLogger(level: string, opts: LoggerOptions = {}): Logger {
  const base = { service: "threadline" };
  if (!opts.pretty) return pino({ level, base });
  return pino({
    level,
    base,
    transport: { target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname,service" } },
  });
}
