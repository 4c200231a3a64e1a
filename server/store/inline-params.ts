/**
 * Statements with their parameters written into the text as quoted literals, for a schema
 * distributed on Citus (distribution.ts). Citus routes a statement to one shard only when it can
 * see the distribution column's value while planning, and for the store's statements that join,
 * lock and modify in CTEs it does not look into bound parameters: the same statement that plans
 * as one task with literals fails with "cannot push down this subquery" or "could not run
 * distributed query with FOR UPDATE/SHARE commands" with $1 (measured on Citus 13.2, docs/scaling.md).
 * Rejected: rewriting every statement into single-table ones Citus's fast path routes with
 * parameters, which would give up the one-statement flush that the group commit is built on,
 * and plain Postgres and PGlite along with it.
 *
 * The text keeps its casts (`$1::text` becomes `'a'::text`), so each value means what it meant
 * as a parameter. Values are rendered as node-postgres renders parameters (arrays as array
 * literals, objects as JSON) and quoted by its escapeLiteral, so no value can end its literal.
 * Named (prepared) statements lose their names: a text that changes with every value has
 * nothing to prepare, and Citus plans a multi-CTE statement at every execution anyway.
 */
import pg from "pg";
import type { Db, Queryable, Statement, Tx } from "./db.ts";

/** `text` with each `$n` replaced by the literal of `params[n - 1]`, in one pass (a value is never scanned again). */
export function inlineParams(text: string, params: readonly unknown[] = []): string {
  if (params.length === 0) return text;
  return text.replace(/\$(\d+)/g, (token, n: string) => {
    const i = Number(n) - 1;
    if (i >= params.length) return token;
    return literalOf(params[i]);
  });
}

function literalOf(value: unknown): string {
  const text = textOf(value);
  return text === null ? "null" : pg.escapeLiteral(text);
}

/** A parameter's text as node-postgres sends it: arrays as array literals, dates in ISO form, objects as JSON. */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return `{${value.map(elementOf).join(",")}}`;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function elementOf(value: unknown): string {
  const text = textOf(value);
  if (text === null) return "NULL";
  if (Array.isArray(value)) return text;
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

const inlined = (st: Statement): Statement => ({ text: inlineParams(st.text, st.params), params: [] });

function inlinedQueryable<Q extends Queryable>(q: Q): Queryable {
  return { query: (text, params) => q.query(inlineParams(text, params), []) };
}

/** The Db with every statement inlined while `on()` says so (the schema is distributed). */
export function inlinedWhen(db: Db, on: () => boolean): Db {
  return {
    get kind() {
      return db.kind;
    },
    query: (text, params, name) => (on() ? db.query(inlineParams(text, params), []) : db.query(text, params, name)),
    transaction: (fn) => (on() ? db.transaction((tx) => fn({ ...inlinedQueryable(tx), exec: (script) => tx.exec(script) } as Tx)) : db.transaction(fn)),
    batch: (statements) => db.batch(on() ? statements.map(inlined) : statements),
    close: () => db.close(),
  };
}
