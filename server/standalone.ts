/** The standalone server (`npm start`, through main.ts): configured by the environment, on the library's API. */
import { ConfigSchema } from "./config.ts";
import { createLogger } from "./logger.ts";
import { logStartFailure } from "./startup-errors.ts";
import { createThreadline, type Threadline } from "./threadline.ts";

// The logger before the configuration: a configuration that does not parse is reported as a log
// line too (at the default level when LOG_LEVEL is itself what is wrong).
const level = ConfigSchema.shape.LOG_LEVEL.safeParse(process.env.LOG_LEVEL);
const logger = createLogger(level.success ? level.data : "info", { pretty: process.stdout.isTTY === true });

/**
 * A start that failed: its sentence (logStartFailure), then exit code 1, at once: no run was
 * accepted, so nothing drains. Rejected: close() first, which would wait on the very database (or
 * directory) whose failure is being reported.
 */
function failStart(err: unknown): never {
  logStartFailure(logger, err);
  process.exit(1);
}

let threadline: Threadline;
let port: number;
try {
  threadline = createThreadline({ logger });
  port = await threadline.listen();
} catch (err) {
  failStart(err);
}
logger.info({ port }, `Threadline listening on http://localhost:${port}`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // A second signal does not wait for the drain: leases left behind expire and recovery takes them.
    if (stopping) process.exit(1);
    stopping = true;
    logger.info(
      { signal, drainTimeoutMs: threadline.config.DRAIN_TIMEOUT_MS },
      "shutting down: new runs are refused; active runs finish their step in flight (within DRAIN_TIMEOUT_MS), then end here or are handed over to another instance",
    );
    void threadline.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
