/**
 * What each migration declares about itself, read from `-- threadline: <directive>` lines in its
 * leading comment block, and the checks every list of migrations passes (numbering, directives)
 * before anything runs: the generator (scripts/migrations.ts) and the runner (migrate.ts) both
 * plan with this, so a bad header fails `npm run gen:migrations` rather than a start in production.
 *
 *   -- threadline: no-transaction        statement by statement, outside a transaction
 *                                        (CREATE INDEX CONCURRENTLY), under the migration lock
 *   -- threadline: no-statement-timeout  without statement_timeout (a long backfill, an index build)
 *   -- threadline: compatible-from N     after it, code that knows migration N or later still runs
 *                                        on the schema; older code is outside the window. N is at
 *                                        most the migration before it: a migration never leaves
 *                                        out the release it is rolled out over
 *
 * A migration that declares no window keeps the one before it: expand is the rule (a migration
 * never breaks the release before it), and test/durability/upgrade.test.ts runs that release on
 * the migrated schema to hold it to that. Rejected: a window for every migration, mandatory, which
 * 0001..0005 (applied, never edited) cannot carry, and which only repeats "nothing changed" on most.
 */

export interface Migration {
  id: number;
  name: string;
  /** the script, with `:THREADLINE_SCHEMA` standing for the schema */
  sql: string;
}

export interface PlannedMigration extends Migration {
  /** false: `no-transaction` */
  transaction: boolean;
  /** false: `no-statement-timeout` */
  statementTimeout: boolean;
  /** `compatible-from N`; undefined when the migration declares none */
  compatibleFrom?: number;
}

export function migrationFile(m: Pick<Migration, "id" | "name">): string {
  return `${String(m.id).padStart(4, "0")}_${m.name}.sql`;
}

const DIRECTIVE = /^--\s*threadline:\s*(.*?)\s*$/;

/** The migrations in order, each with its directives; throws naming the file and the fix. */
export function planMigrations(migrations: readonly Migration[]): PlannedMigration[] {
  return migrations.map((m, i) => {
    if (m.id !== i + 1) throw new Error(`Migrations must be numbered 0001, 0002, ... without gaps; found ${m.id} at position ${i + 1}`);
    return { ...m, ...directivesOf(m) };
  });
}

function directivesOf(m: Migration): Omit<PlannedMigration, keyof Migration> {
  const file = migrationFile(m);
  const planned: Omit<PlannedMigration, keyof Migration> = { transaction: true, statementTimeout: true };
  let header = true;
  for (const raw of m.sql.split("\n")) {
    const line = raw.trim();
    const directive = DIRECTIVE.exec(line)?.[1];
    if (directive === undefined) {
      // The header ends at the first line that is neither blank nor a comment.
      if (line !== "" && !line.startsWith("--")) header = false;
      continue;
    }
    if (!header) throw new Error(`${file}: "-- threadline: ${directive}" comes after the first statement; directives go in the leading comment block.`);
    const window = /^compatible-from\s+(\d+)$/.exec(directive);
    if (directive === "no-transaction") planned.transaction = false;
    else if (directive === "no-statement-timeout") planned.statementTimeout = false;
    else if (window) {
      const from = Number(window[1]);
      // The release before this migration serves while it is applied: it must stay inside.
      const newest = Math.max(1, m.id - 1);
      if (from < 1 || from > newest) {
        throw new Error(
          `${file}: compatible-from ${from} must name a migration from 1 to ${newest}: the release before this migration (it knows ${m.id - 1}) ` +
            "still serves while it is applied. Drop what that release uses in a later migration, once no instance runs it.",
        );
      }
      planned.compatibleFrom = from;
    } else {
      throw new Error(`${file}: unknown directive "-- threadline: ${directive}"; the directives are no-transaction, no-statement-timeout and compatible-from N.`);
    }
  }
  return planned;
}
