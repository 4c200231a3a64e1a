/**
 * Named prepared statements for the hot path (Statement.name: a flush, the heartbeat, a
 * follower's read). An unnamed statement is parsed, analysed and planned at every execution:
 * about 0.3 ms of the ~1 ms a one-token flush costs the server. A named one is parsed and
 * planned once per connection and then only bound and executed.
 *
 * A named statement lives in the server connection that parsed it, so names are used only where
 * the client keeps its server connection: a direct server or a session-mode pooler, as the
 * session plan found (session-plan.ts). A transaction-mode pooler hands the next transaction
 * another server connection, where the name is unknown (PgBouncer before 1.21, or without
 * max_prepared_statements); there, and until the plan is known, statements go unnamed. Should
 * the server refuse a name anyway (the plan was wrong, a pooler changed under us), names are
 * turned off for good and the statement runs again unnamed: nothing of it ran.
 *
 * Rejected: naming every statement (the cold ones would each hold a plan in every connection for
 * nothing), and PgBouncer's protocol-level support as the only way (it needs 1.21+ configured so,
 * which the plan cannot see from a client).
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import { sqlStateOf } from "./retry.ts";

/** invalid_sql_statement_name ("prepared statement ... does not exist"), duplicate_prepared_statement */
const REFUSED_NAME_CODES = new Set(["26000", "42P05"]);

export interface PreparedNames {
  /** The query for pg: named when names are on and the statement has one. */
  query(text: string, params: readonly unknown[] | undefined, name: string | undefined, named: boolean): pg.QueryConfig;
  /** Whether names are to be used now (answered before each use, so that a refusal turns them off). */
  on(): boolean;
  /** True, and names off from now on, when `err` is the server refusing a name this sent. */
  refused(err: unknown, named: boolean): boolean;
}

/**
 * `keeps`: whether the connections keep prepared statements (undefined: not known yet, so no).
 * The name of a statement is its given name and a hash of its text: the same name with another
 * text (another schema on an application's shared pool) is another statement. One name per
 * distinct named text (a few per schema) is remembered.
 */
export function preparedNames(keeps: () => boolean | undefined): PreparedNames {
  const names = new Map<string, string>();
  let off = false;
  const nameOf = (text: string, name: string): string => {
    let full = names.get(text);
    if (full === undefined) {
      full = `threadline_${name}_${createHash("sha1").update(text).digest("hex").slice(0, 12)}`;
      names.set(text, full);
    }
    return full;
  };
  return {
    query(text, params, name, named) {
      const values = params as unknown[] | undefined;
      return named && name !== undefined ? { name: nameOf(text, name), text, values } : { text, values };
    },
    on: () => !off && keeps() === true,
    refused(err, named) {
      if (!named || !REFUSED_NAME_CODES.has(sqlStateOf(err) ?? "")) return false;
      off = true;
      return true;
    },
  };
}

/** Names never used: an application's pool, whose pooler this store cannot see. */
export const UNNAMED: PreparedNames = preparedNames(() => false);
