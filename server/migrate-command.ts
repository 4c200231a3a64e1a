/**
 * `threadline migrate`: applies the store's migrations to the database the environment names
 * (DATABASE_URL and DATABASE_SCHEMA, else the PGlite directory DATA_DIR) and exits, for a deploy
 * step that migrates before any instance starts (docs/migrations.md). Instances migrate at start
 * too, under the same locks, so running both is safe. A failure is a start-up sentence, as
 * `npm start` gives it.
 */
import { openDatabase } from "./database.ts";
import type { Logger } from "./logger.ts";
import { resolveConfig } from "./options.ts";
import { startErrorOf, startupContext } from "./startup-errors.ts";
import { MIGRATIONS } from "./store/migrations.generated.ts";

export async function migrateCommand(logger: Logger): Promise<void> {
  const config = resolveConfig({});
  const store = openDatabase(undefined, config, { onError: (err) => logger.warn({ err }, "event store background error during the migration") });
  try {
    await store.migrate();
  } catch (err) {
    throw startErrorOf(err, startupContext({}, config));
  } finally {
    await store.close().catch((err: unknown) => logger.warn({ err }, "closing the event store failed"));
  }
  const newest = MIGRATIONS.at(-1)!;
  const where = store.kind === "postgres" ? `schema ${config.DATABASE_SCHEMA} of DATABASE_URL` : `the embedded database under ${config.DATA_DIR}`;
  logger.info({ store: store.kind, migration: newest.id }, `migrated: ${where} is at migration ${newest.id} (${newest.name})`);
}
