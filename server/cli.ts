#!/usr/bin/env node
/**
 * `npx threadline <command>`:
 *   start         the standalone server (what `npm start` runs: server/main.ts)
 *   migrate       apply the store's migrations to the configured database, then exit
 *   conformance   check an AG-UI server (the threadline-conformance kit; its own arguments)
 * Configured by the environment, as the server is (.env.example). Exit codes: 0 done, 1 failed,
 * 2 a usage error. Each command is imported only when asked for: `migrate` never loads the
 * server, `conformance` never opens a database.
 */
import "./node-check.ts";
import { ConfigSchema } from "./config.ts";
import { createLogger } from "./logger.ts";

const USAGE = `Usage: threadline <command>

  start         serve: the API under /api, health at /healthz and /readyz, the app at /
  migrate       apply the event store's migrations to DATABASE_URL (or DATA_DIR), then exit
  conformance   check an AG-UI server: threadline conformance <url> [options] (--help for them)

Every setting is an environment variable (PORT, DATABASE_URL, OPENAI_API_KEY...): see
.env.example and docs/configuration.md.`;

const [command, ...rest] = process.argv.slice(2);

switch (command) {
  case "start":
    await import("./main.ts");
    break;
  case "migrate": {
    const level = ConfigSchema.shape.LOG_LEVEL.safeParse(process.env.LOG_LEVEL);
    const logger = createLogger(level.success ? level.data : "info", { pretty: process.stdout.isTTY === true });
    const [{ migrateCommand }, { logStartFailure }] = await Promise.all([import("./migrate-command.ts"), import("./startup-errors.ts")]);
    try {
      await migrateCommand(logger);
    } catch (err) {
      logStartFailure(logger, err);
      process.exitCode = 1;
    }
    break;
  }
  case "conformance":
    // The kit reads its arguments from process.argv, as its own bin does.
    process.argv.splice(2, process.argv.length - 2, ...rest);
    await import("../conformance/cli.ts");
    break;
  case "help":
  case "--help":
  case "-h":
    process.stdout.write(`${USAGE}\n`);
    break;
  default:
    process.stderr.write(`${command === undefined ? "Give a command." : `"${command}" is not a command of threadline.`}\n\n${USAGE}\n`);
    process.exitCode = 2;
}
