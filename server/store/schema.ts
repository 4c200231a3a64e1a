/**
 * Where the store's objects live: one Postgres schema (default `threadline`), so that several
 * deployments, or every test file, can share one database without seeing each other.
 *
 * The name is interpolated into SQL text (graphile-worker does the same with its schema), so it
 * is checked against a strict pattern here and always used quoted.
 */
export const DEFAULT_SCHEMA = "threadline";

/** Lower-case identifier, short enough that `<schema>_events` is a legal channel name (< 64). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,55}$/;

export interface SchemaNames {
  /** the bare name, as given */
  readonly name: string;
  /** the quoted identifier to put in SQL text: `"threadline"` */
  readonly ident: string;
  /** the LISTEN/NOTIFY channel of the doorbell */
  readonly channel: string;
}

export function schemaNames(name: string = DEFAULT_SCHEMA): SchemaNames {
  if (!SCHEMA_NAME.test(name)) {
    throw new Error(
      `Invalid store schema name ${JSON.stringify(name)}: use 1 to 56 characters among a-z, 0-9 and _, ` +
        `not starting with a digit (for example "threadline" or "threadline_test_1").`,
    );
  }
  return { name, ident: `"${name}"`, channel: `${name}_events` };
}
