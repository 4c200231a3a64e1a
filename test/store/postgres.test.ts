/**
 * The contract on real Postgres (DATABASE_URL, set in CI), plus what only Postgres has: the
 * LISTEN connection that must survive being killed, and the one-NOTIFY-per-flush doorbell.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createStore } from "../../server/store/index.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import type { EventStore } from "../../server/store/types.ts";
import { postgresBackend } from "./backends.ts";
import { storeContract } from "./contract.ts";
import { ev, followUntil, randomId, randomSchema } from "./fixtures.ts";

const url = process.env.DATABASE_URL;

if (url) storeContract(postgresBackend(url));

describe.skipIf(!url)("Postgres store", () => {
  const schema = randomSchema();
  const stores: EventStore[] = [];
  const open = (opts: Partial<Parameters<typeof createPostgresStore>[0]> = {}) => {
    const store = createPostgresStore({ connectionString: url!, schema, ...opts });
    stores.push(store);
    return store;
  };

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });

  it("createStore picks Postgres when a database URL is given", async () => {
    const store = createStore({ databaseUrl: url, schema });
    stores.push(store);
    expect(store.kind).toBe("postgres");
    await store.migrate();
  });

  it("a follower keeps receiving after its LISTEN connection is killed", async () => {
    const errors: Error[] = [];
    const writer = open();
    const reader = open({ applicationName: "tl-reader", onError: (err) => errors.push(err) });
    await writer.migrate();
    const threadId = randomId("t");
    await writer.ensureThread(threadId, "agent");

    const ac = new AbortController();
    const seen: number[] = [];
    let resolveFirst!: () => void;
    const first = new Promise<void>((resolve) => (resolveFirst = resolve));
    const following = (async () => {
      for await (const batch of reader.follow(threadId, 0, ac.signal)) {
        seen.push(...batch.map((e) => e.seq));
        if (seen.length === 1) resolveFirst();
        if (seen.length >= 3) ac.abort();
      }
    })();

    await writer.append(threadId, [ev.userMessage("one")]);
    await first;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const killed = await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1::text`,
      [`tl-reader:listen:${schema}`],
    );
    await admin.end();
    expect(killed.rowCount).toBe(1);

    await writer.append(threadId, [ev.userMessage("two")]);
    await writer.append(threadId, [ev.userMessage("three")]);
    await following;
    expect(seen).toEqual([1, 2, 3]);
    expect(errors.length).toBeGreaterThan(0);
  });

  it("rings one NOTIFY per flush, naming the threads, or '*' when they do not fit", async () => {
    const store = open();
    await store.migrate();
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    const payloads: string[] = [];
    listener.on("notification", (msg) => payloads.push(msg.payload ?? ""));
    await listener.query(`listen "${schema}_events"`);
    try {
      const threads = Array.from({ length: 5 }, () => randomId("t"));
      for (const t of threads) await store.ensureThread(t, "agent");
      await Promise.all(threads.flatMap((t) => [1, 2, 3].map((i) => store.append(t, [ev.delta("r", `${i}`)]))));
      const wide = Array.from({ length: 250 }, () => randomId("t".repeat(40)));
      for (const t of wide) await store.ensureThread(t, "agent");
      await Promise.all(wide.map((t) => store.append(t, [ev.delta("r", "w")])));

      // the listener's connection delivers notifications in commit order; a follow-up NOTIFY
      // on the same channel marks the end
      await listener.query(`select pg_notify($1::text, 'end')`, [`${schema}_events`]);
      await new Promise<void>((resolve) => {
        const check = () => (payloads.at(-1) === "end" ? resolve() : setImmediate(check));
        check();
      });
      const rings = payloads.slice(0, -1).map((p) => JSON.parse(p) as { threads: string[] | "*" });
      expect(rings).toHaveLength(2);
      expect([...(rings[0]!.threads as string[])].sort()).toEqual([...threads].sort());
      expect(rings[1]!.threads).toBe("*");
    } finally {
      await listener.end();
    }
  });

  it("retries a flush whose connection was killed before COMMIT, and writes it once", async () => {
    const store = open({ applicationName: "tl-retry" });
    await store.migrate();
    const threadId = randomId("t");
    await store.ensureThread(threadId, "agent");
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // hold the thread's row lock, so that the flush waits inside its transaction
      await admin.query("begin");
      await admin.query(`select 1 from "${schema}".threads where thread_id = $1::text for update`, [threadId]);
      const appending = store.append(threadId, [ev.userMessage("once")]);
      let blocked: number | undefined;
      while (blocked === undefined) {
        // Inside a transaction the activity view is a snapshot taken once: take a fresh one.
        await admin.query("select pg_stat_clear_snapshot()");
        const { rows } = await admin.query<{ pid: number }>(
          `select pid from pg_stat_activity where application_name = 'tl-retry:writer' and wait_event_type = 'Lock'`,
        );
        blocked = rows[0]?.pid;
      }
      await admin.query(`select pg_terminate_backend($1::int)`, [blocked]);
      await admin.query("commit");
      expect((await appending).map((e) => e.seq)).toEqual([1]);
      expect(await store.read(threadId)).toHaveLength(1);
      expect(await store.getThread(threadId)).toMatchObject({ lastSeq: 1 });
    } finally {
      await admin.end();
    }
  });

  it("a follower through one pool sees appends made through another (cross-instance)", async () => {
    const [a, b] = [open(), open()];
    await a.migrate();
    const threadId = randomId("t");
    await a.ensureThread(threadId, "agent");
    const following = followUntil(b, threadId, 0, 50);
    for (let i = 0; i < 50; i++) await a.append(threadId, [ev.delta("r", `${i}`)]);
    expect((await following).map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});
