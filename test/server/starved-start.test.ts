/**
 * Instances started together on a fresh schema while busy loops hold every core (two per core),
 * as an operator starts a deployment on a starved node (issue 29): each a real standalone server
 * (server/main.ts), all spawned in the same moment, each polled on /readyz every 50 ms from the
 * moment its port is bound (the first moment it can answer). All of them come up, and the first
 * run sent to each right after its first 200 is accepted. Before migrations had bounds of their
 * own, one of two such instances died in every round of the issue's: its migration, starved
 * between two statements, was ended by the server's idle_in_transaction_session_timeout (5 s, a
 * request's bound), then "The connection was lost during COMMIT". PGlite has one process per
 * DATA_DIR, so no race: readiness.test.ts probes its start.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startBusyLoops } from "../support/busy-loops.ts";
import { spawnMain, type MainProcess } from "../support/main-process.ts";
import { boundUrl, expectNotStartedBefore, sendRun, START_BOUND_MS, untilReady } from "../support/readiness-probe.ts";
import { testSchema } from "../support/schemas.ts";

const DATABASE_URL = process.env.DATABASE_URL;
/** Rounds per case (STARVED_ROUNDS, default 1): the acceptance of issue 29 is ten rounds of two. Each round has busy loops of its own, for its own length only. */
const ROUNDS = Number(process.env.STARVED_ROUNDS ?? 1);

const children: MainProcess[] = [];
afterAll(async () => {
  for (const c of children) await c.kill("SIGKILL");
});

interface Instance {
  up: boolean;
  readyMs?: number;
  runStatus?: number;
  error?: string;
}

/** `n` servers on one fresh schema, spawned together; each to its first 200 and a run. */
async function round(n: number): Promise<Instance[]> {
  const schema = testSchema("st");
  const spawnedAt = performance.now();
  const servers = Array.from({ length: n }, () => {
    const child = spawnMain({ DATABASE_URL, DATABASE_SCHEMA: schema, PORT: "0", LOG_LEVEL: "info" });
    children.push(child);
    return child;
  });
  return Promise.all(
    servers.map(async (child): Promise<Instance> => {
      try {
        const url = await boundUrl(child);
        const seen = await untilReady(url, child.exited);
        const readyMs = Math.round(performance.now() - spawnedAt);
        const run = await sendRun(`${url}/api/agents/default/run`);
        expectNotStartedBefore(seen);
        const ok = run.status === 200 && run.text.includes('"type":"RUN_FINISHED"');
        return { up: ok, readyMs, runStatus: run.status, ...(!ok && { error: run.text.slice(0, 500) }) };
      } catch (err) {
        const failed = child.lines().find((l) => l.level >= 50);
        const stack = (failed?.err as { stack?: string } | undefined)?.stack;
        return { up: false, error: failed ? `${failed.msg}${stack ? `\n${stack}` : ""}` : (err as Error).message.slice(0, 2000) };
      } finally {
        await child.kill("SIGTERM");
      }
    }),
  );
}

describe.skipIf(!DATABASE_URL)("instances started together on a starved CPU (Postgres)", () => {
  for (const n of [2, 6]) {
    it(
      `${n} instances on a fresh schema, busy loops two per core: all ${n} ready, and each one's first run accepted (${ROUNDS} round${ROUNDS === 1 ? "" : "s"})`,
      async () => {
        const failed: Instance[] = [];
        for (let r = 1; r <= ROUNDS; r++) {
          const busy = startBusyLoops({ perCore: 2 });
          let instances: Instance[];
          try {
            instances = await round(n);
          } finally {
            await busy.stop();
          }
          console.log(`round ${r}: ${n} instances, ${busy.count} busy loops: ${instances.map((i) => (i.up ? `ready at ${i.readyMs} ms` : `FAILED: ${i.error}`)).join("; ")}`);
          failed.push(...instances.filter((i) => !i.up));
        }
        expect(failed).toEqual([]);
      },
      ROUNDS * (START_BOUND_MS + 60_000),
    );
  }
});
