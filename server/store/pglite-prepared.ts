/**
 * Named prepared statements on PGlite, for the statements of the hot path (Statement.name: a
 * flush's batch statement and its doorbell). PGlite's query() sends Parse, Describe, Bind,
 * Describe, Execute and Sync each as its own call into the WASM Postgres, with an unnamed
 * statement that is parsed, analysed and planned at every execution; the batch statement (a CTE
 * over 23 array parameters) cost about 2 ms of CPU per flush that way in process, most of a
 * small flush. Named, it is parsed and planned once per PGlite instance and then bound and
 * executed in one call: the same saving pool-db.ts gets from named statements on Postgres.
 *
 * Parameters are serialised as PGlite's query() does (its serializer for each parameter's type,
 * as the statement's description gives it), and rows parsed by its own parseResults, so a named
 * statement answers exactly what query() would. Rejected: SQL PREPARE and EXECUTE, whose
 * EXECUTE takes no protocol parameters (the values would have to be quoted into the text).
 */
import { createHash } from "node:crypto";
import { type PGlite, parse, protocol } from "@electric-sql/pglite";
import type { Row } from "./db.ts";

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

/**
 * Runs `text` as the named statement `name` on `pglite`, in whatever transaction is open (the
 * caller's), and resolves with its rows. Fails as query() would, with the database's error.
 */
export function queryNamed(pglite: PGlite, text: string, params: readonly unknown[], name: string): Promise<Row[]> {
  // The query lock, as query() takes it: nothing else may send protocol messages in between.
  return pglite.runExclusive(async () => {
    let statements = preparedBy.get(pglite);
    if (!statements) {
      statements = new Map();
      preparedBy.set(pglite, statements);
    }
    let prepared = statements.get(text);
    if (!prepared) {
      // The name carries a hash of the text: stores of two schemas may share one instance.
      const full = `threadline_${name}_${createHash("sha1").update(text).digest("hex").slice(0, 12)}`;
      const described = await pglite.execProtocol(
        concat([serialize.parse({ name: full, text, types: [] }), serialize.describe({ type: "S", name: full }), serialize.sync()]),
        { syncToFs: false },
      );
      prepared = { name: full, paramTypes: parse.parseDescribeStatementResults(described.messages) };
      statements.set(text, prepared);
    }
    const { paramTypes } = prepared;
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = pglite.serializers[paramTypes[i]!];
      return serializer ? serializer(v) : String(v);
    });
    const result = await pglite.execProtocol(
      concat([serialize.bind({ statement: prepared.name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()]),
      { syncToFs: false },
    );
    return (parse.parseResults(result.messages, pglite.parsers)[0]?.rows ?? []) as Row[];
  });
}
