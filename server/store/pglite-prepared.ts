/**
 * A flush's statements on PGlite as ONE call into the WASM Postgres: each statement bound to a
 * named prepared statement and executed, one Sync at the end. Postgres runs the messages before
 * a Sync as one implicit transaction (protocol-flow, "Pipelining"): it commits at the Sync, and
 * the first error skips the rest and rolls all of them back. So the flush needs no BEGIN and no
 * COMMIT of its own: PGlite's transaction() sends each as a simple query, and its query() sends
 * Parse, Describe, Bind, Describe, Execute and Sync each as a call of its own, with an unnamed
 * statement that is parsed and planned at every execution. Measured in the 200-run benchmark
 * (docs/performance.md, 2026-11-24): the BEGIN and COMMIT calls were 17 % of the server's CPU,
 * more than a third of what the flush statements themselves cost.
 *
 * Each statement is parsed and planned once per PGlite instance (its one session), then only
 * bound and executed: the same saving pool-db.ts gets from named statements on Postgres.
 * Parameters are serialised as PGlite's query() does (its serializer for each parameter's type,
 * as the statement's description gives it), and rows parsed by its own parseResults, so a
 * statement answers exactly what query() would. Rejected: SQL PREPARE and EXECUTE, whose
 * EXECUTE takes no protocol parameters (the values would have to be quoted into the text); and
 * BEGIN and COMMIT as simple queries in the same message, which adds nothing the implicit
 * transaction does not already give.
 */
import { createHash } from "node:crypto";
import { type PGlite, parse, protocol } from "@electric-sql/pglite";
import type { Row, Statement } from "./db.ts";

interface Prepared {
  name: string;
  paramTypes: number[];
}

/** Per PGlite instance (the session the statements live in): the statements it has parsed, by text. */
const preparedBy = new WeakMap<PGlite, Map<string, Prepared>>();

const { serialize } = protocol;

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The statement named for `text` on `pglite`, parsed and described on first use. Call under the query lock. */
async function prepared(pglite: PGlite, text: string, name: string): Promise<Prepared> {
  let statements = preparedBy.get(pglite);
  if (!statements) {
    statements = new Map();
    preparedBy.set(pglite, statements);
  }
  const known = statements.get(text);
  if (known) return known;
  // The name carries a hash of the text: stores of two schemas may share one instance.
  const full = `threadline_${name}_${createHash("sha1").update(text).digest("hex").slice(0, 12)}`;
  const described = await pglite.execProtocol(
    concat([serialize.parse({ name: full, text, types: [] }), serialize.describe({ type: "S", name: full }), serialize.sync()]),
    { syncToFs: false },
  );
  const made = { name: full, paramTypes: parse.parseDescribeStatementResults(described.messages) };
  statements.set(text, made);
  return made;
}

/**
 * Runs `statements` in order as one transaction (the implicit one of a single Sync) and resolves
 * with each statement's rows; rejects with the database's error, having written nothing, when
 * one fails. A statement without a name (Statement.name) is named after its text here: on one
 * session in this process, every statement of a flush is worth keeping parsed.
 *
 * It holds PGlite's transaction lock as well as its query lock: between another caller's BEGIN
 * and COMMIT, these messages would join that transaction instead of making their own.
 */
export function runBatch(pglite: PGlite, statements: readonly Statement[]): Promise<Row[][]> {
  return pglite._runExclusiveTransaction(() =>
    pglite.runExclusive(async () => {
      const parts: Uint8Array[] = [];
      for (const st of statements) {
        const { name, paramTypes } = await prepared(pglite, st.text, st.name ?? "batch");
        const values = st.params.map((v, i) => {
          if (v === null || v === undefined) return null;
          const serializer = pglite.serializers[paramTypes[i]!];
          return serializer ? serializer(v) : String(v);
        });
        parts.push(serialize.bind({ statement: name, values }), serialize.describe({ type: "P" }), serialize.execute({}));
      }
      parts.push(serialize.sync());
      const result = await pglite.execProtocol(concat(parts), { syncToFs: false });
      // One result per statement: each ends in its CommandComplete.
      const sets = parse.parseResults(result.messages, pglite.parsers);
      return statements.map((_, i) => (sets[i]?.rows ?? []) as Row[]);
    }),
  );
}
