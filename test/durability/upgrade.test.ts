/**
 * Rolling upgrades: the code from before each migration (an earlier release, extracted from git
 * by test/support/releases.ts) runs as a server process on a fresh Postgres schema that today's
 * code migrated, as an old instance does once the first new instance of a rollout has started.
 *
 * The schema's window (the newest `compatible-from` among its migrations) says what each release
 * must do, and the test holds it true at both ends:
 * - a release inside it admits a run, streams it to RUN_FINISHED and settles the thread
 *   (GET /api/threads/:id); today's server reads what it wrote and continues the thread, and the
 *   old release reads and continues what today's wrote (a checkpoint included);
 * - a release outside it that reads the window (those that know migration 0006) answers /readyz
 *   503 SCHEMA_TOO_NEW; one from before that cannot say so, and its runs are refused.
 *
 * Today: releases that know 0003..0005 run (0006 gave tenant_id the default their thread inserts
 * need); the two that know only 0001 or 0002 upsert runs `on conflict (run_id)`, a key 0003
 * replaced, and are outside the window 0006 declares.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMigrations } from "../../server/store/migrate.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import { selectSchemaWindow } from "../../server/store/sql/migrations.ts";
import { DATABASE_URL, noticeSkip } from "../support/multiprocess-kit.ts";
import { extractRelease, historyMissing, releasesBefore, removeRelease, type Release } from "../support/releases.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../support/scripted-upstream.ts";
import { spawnServer, type ServerProcess } from "../support/server-process.ts";
import { startTestServer } from "../support/server.ts";
import { postSse, type SseFrame } from "../support/sse-client.ts";

/** The first release that reads the window from the database knows this migration. */
const WINDOW_RULE_FROM = 6;
const SETTLED = ["WAITING", "COMPLETED"];
const ANSWER = ["Hello", " from", " the", " model"];

noticeSkip("upgrade");
const missing = DATABASE_URL ? historyMissing() : undefined;
if (missing) console.warn(`[upgrade] SKIPPED: ${missing}; these tests run the earlier releases from git.`);
const releases: Release[] = DATABASE_URL && !missing ? releasesBefore(loadMigrations()) : [];
/** The window this release's migrations declare (the newest compatible-from), for the tests' names; each test reads the database's. */
const declared = loadMigrations().findLast((m) => m.compatibleFrom !== undefined)?.compatibleFrom ?? 1;

interface ThreadView {
  status: string;
  messages: { role: string; content?: unknown }[];
}

async function run(url: string, threadId: string, runId: string, text: string): Promise<{ status: number; frames: SseFrame[] }> {
  const stream = await postSse(`${url}/api/agents/default/run`, {
    threadId,
    runId,
    messages: [{ id: `${runId}-u`, role: "user", content: text }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });
  return { status: stream.status, frames: await stream.done };
}

async function thread(url: string, threadId: string): Promise<ThreadView> {
  const res = await fetch(`${url}/api/threads/${threadId}`);
  if (!res.ok) throw new Error(`GET ${url}/api/threads/${threadId}: ${res.status} ${await res.text()}`);
  return (await res.json()) as ThreadView;
}

function expectFinished(result: { status: number; frames: SseFrame[] }, who: string): void {
  const types = result.frames.map((f) => f.event.type);
  expect(result.status, `${who}: HTTP status`).toBe(200);
  expect(types[0], `${who}: ${types.join(", ")}`).toBe("RUN_STARTED");
  expect(result.frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").map((f) => f.event.delta)).toEqual(ANSWER);
  expect(types.at(-1), `${who}: ${types.join(", ")}`).toBe("RUN_FINISHED");
}

const userTexts = (view: ThreadView) => view.messages.filter((m) => m.role === "user").map((m) => m.content);
const answers = (view: ThreadView) => view.messages.filter((m) => m.role === "assistant").map((m) => m.content);

describe.skipIf(releases.length === 0)("rolling upgrade: each earlier release on the schema today's code migrated", () => {
  let upstream: ScriptedUpstream;
  const cleanup: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    upstream = await startScriptedUpstream(() => ({ text: ANSWER }));
  });

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
    await upstream?.close();
  }, 60_000);

  const cases = releases.map((r) => [r.before, r.commit.slice(0, 8), r.knows, r.knows >= declared ? "inside the window: runs, both ways" : "outside the window", r] as const);
  it.each(cases)("the release before migration %i (%s, knows %i): %s", async (_before, _short, knows, _expected, release) => {
    const dir = extractRelease(release.commit);
    cleanup.push(async () => removeRelease(dir));
    const schema = `up_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
    cleanup.push(() => dropSchema(schema));

    // The first new instance of the rollout: today's code migrates the schema.
    const store = createPostgresStore({ connectionString: DATABASE_URL!, schema });
    cleanup.push(() => store.close());
    await store.migrate();
    const window = await withClient((c) => selectSchemaWindow(c, `"${schema}"`));
    const inWindow = window.compatibleFrom === null || knows >= window.compatibleFrom;

    const old = await spawnServer({
      name: `release ${release.commit.slice(0, 8)} (knows ${knows}): ${release.subject.slice(0, 60)}`,
      checkout: dir,
      env: {
        DATABASE_URL: DATABASE_URL!,
        DATABASE_SCHEMA: schema,
        OPENAI_BASE_URL: upstream.url,
        OPENAI_API_KEY: "test",
        CHILD_AGENTS: "default",
        CHILD_INSTANCE_ID: `release-${release.commit.slice(0, 8)}`,
      },
      readyTimeoutMs: 60_000,
    });
    cleanup.push(() => old.kill("SIGKILL"));

    try {
      if (!inWindow) await outsideWindow(old, knows, window.applied);
      else await insideWindow(old, store, release);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n----- ${old.name} -----\n${old.output().slice(-6000)}`, { cause: err });
    }
  }, 180_000);

  async function outsideWindow(old: ServerProcess, knows: number, applied: number): Promise<void> {
    if (knows >= WINDOW_RULE_FROM) {
      const res = await fetch(`${old.url}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; error: string };
      expect(body.code).toBe("SCHEMA_TOO_NEW");
      expect(body.error).toContain(`is at migration ${applied}`);
      expect(body.error).toContain(`this release knows migrations up to ${knows}`);
      return;
    }
    // From before the window rule: it cannot tell it is outside; what the window says, its runs show.
    const refused = await run(old.url, `outside-${randomUUID()}`, "r1", "hello");
    expect(refused.frames.map((f) => f.event.type)).not.toContain("RUN_FINISHED");
  }

  async function insideWindow(old: ServerProcess, store: ReturnType<typeof createPostgresStore>, release: Release): Promise<void> {
    const threadId = `upgrade-${release.before}-${randomUUID().slice(0, 8)}`;
    expect((await fetch(`${old.url}/readyz`)).status).toBe(200);

    // The old release admits, streams and settles a new thread.
    expectFinished(await run(old.url, threadId, "r1", "first, on the old release"), "the old release's run");
    expect(SETTLED).toContain((await thread(old.url, threadId)).status);

    // Today's code reads what it wrote and continues the thread (writing a checkpoint at its end).
    const today = await startTestServer({ backend: "postgres", store, llmUrl: upstream.url });
    try {
      expect(userTexts(await thread(today.url, threadId))).toEqual(["first, on the old release"]);
      expectFinished(await run(today.url, threadId, "r2", "second, on today's release"), "today's run");

      // The old release reads that, and continues the thread past today's checkpoint.
      expect(userTexts(await thread(old.url, threadId))).toEqual(["first, on the old release", "second, on today's release"]);
      expectFinished(await run(old.url, threadId, "r3", "third, on the old release"), "the old release's second run");

      const view = await thread(today.url, threadId);
      expect(userTexts(view)).toEqual(["first, on the old release", "second, on today's release", "third, on the old release"]);
      expect(answers(view)).toEqual(Array(3).fill(ANSWER.join("")));
      expect(SETTLED).toContain(view.status);
    } finally {
      await today.close();
    }
  }
});

async function withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function dropSchema(schema: string): Promise<unknown> {
  return withClient((c) => c.query(`drop schema if exists "${schema}" cascade`));
}
