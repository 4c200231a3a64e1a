/**
 * The worker thread's side of pglite-thread.ts, as plain JavaScript given to the Worker as text
 * (eval): it loads PGlite's CommonJS build by its resolved path, so it needs no loader from
 * source, dist or a test runner alike (a .ts worker would need tsx's loader, which vitest does
 * not give a worker). It opens the directory (initdb first when it holds no cluster), then answers
 * one message per operation: { id, op, ...args } → { id, ok, value } or { id, ok: false, error }.
 * The batch is pglite-prepared.ts's runBatch in JavaScript (kept in step with it by
 * test/store/pglite-thread.test.ts, which runs the contract suite here).
 */
export const PGLITE_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { createHash } = require("node:crypto");
const { PGlite, parse, protocol } = require(workerData.pglite);
const { serialize } = protocol;
let pg;
const txs = new Map();
const unlistens = new Map();
const prepared = new Map();
const FIELDS = ["name", "code", "detail", "hint", "severity", "position", "where", "schema", "table", "column", "dataType", "constraint", "routine"];

function errorOut(err) {
  const out = { message: String((err && err.message) || err) };
  for (const k of FIELDS) if (err && err[k] !== undefined) out[k] = err[k];
  return out;
}
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
async function statement(text, name) {
  const known = prepared.get(text);
  if (known) return known;
  const full = "threadline_" + name + "_" + createHash("sha1").update(text).digest("hex").slice(0, 12);
  const described = await pg.execProtocol(concat([serialize.parse({ name: full, text, types: [] }), serialize.describe({ type: "S", name: full }), serialize.sync()]), { syncToFs: false });
  const made = { name: full, paramTypes: parse.parseDescribeStatementResults(described.messages) };
  prepared.set(text, made);
  return made;
}
function batch(statements) {
  return pg._runExclusiveTransaction(() => pg.runExclusive(async () => {
    const parts = [];
    for (const st of statements) {
      const { name, paramTypes } = await statement(st.text, st.name || "batch");
      const values = st.params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = pg.serializers[paramTypes[i]];
        return serializer ? serializer(v) : String(v);
      });
      parts.push(serialize.bind({ statement: name, values }), serialize.describe({ type: "P" }), serialize.execute({}));
    }
    parts.push(serialize.sync());
    const result = await pg.execProtocol(concat(parts), { syncToFs: false });
    const sets = parse.parseResults(result.messages, pg.parsers);
    return statements.map((_, i) => (sets[i] && sets[i].rows) || []);
  }));
}
const target = (tx) => (tx === undefined ? pg : txs.get(tx).t);
const ops = {
  async open() { pg = new PGlite(workerData.dataDir); await pg.waitReady; },
  async query({ text, params, tx }) {
    const r = await target(tx).query(text, params);
    return { rows: r.rows, rowCount: r.affectedRows === undefined ? r.rows.length : r.affectedRows };
  },
  async exec({ script, tx }) { await target(tx).exec(script); },
  begin({ tx }) {
    return new Promise((started, failed) => {
      const whole = pg.transaction((t) => new Promise((commit, rollback) => { txs.set(tx, { t, commit, rollback, whole }); started(); }));
      whole.catch(failed); // a BEGIN that failed; after it began, end() reports the outcome
    });
  },
  async end({ tx, commit }) {
    const x = txs.get(tx);
    txs.delete(tx);
    if (commit) x.commit(); else x.rollback(new Error("rolled back"));
    await x.whole.then(() => undefined, (err) => { if (commit) throw err; });
  },
  batch: ({ statements }) => batch(statements),
  async listen({ channel, listener }) {
    unlistens.set(listener, await pg.listen(channel, (payload) => parentPort.postMessage({ notify: listener, payload })));
  },
  async unlisten({ listener }) {
    const unlisten = unlistens.get(listener);
    unlistens.delete(listener);
    if (unlisten && !pg.closed) await unlisten();
  },
  async close() { if (pg && !pg.closed) await pg.close(); },
};
parentPort.on("message", (m) => {
  ops[m.op](m).then(
    (value) => parentPort.postMessage({ id: m.id, ok: true, value }),
    (err) => parentPort.postMessage({ id: m.id, ok: false, error: errorOut(err) }),
  );
});
`;
