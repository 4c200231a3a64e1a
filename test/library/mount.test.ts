/**
 * router() mounted in an application's own Express app, under "/ai" and under a deeper path:
 * the application's routes still answer, the real AG-UI clients (1.0.0 and 0.0.59) run through
 * the mount, an unknown path under it is a JSON 404 that names the mount, and an auth hook that
 * refuses is a 401 that writes nothing.
 */
import { testPglite } from "../support/pglite.ts";
import type { Request } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import type { DatabaseOption } from "../../server/options.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { backends, testSchema, type BackendName } from "../support/server.ts";
import { startGatedUpstream } from "../server/support.ts";
import { startLibraryApp, type LibraryApp } from "./support.ts";

const weather = defineTool({
  name: "get_weather",
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: "sunny", tempC: 21 }),
});
const assistant = defineAgent({ id: "assistant", description: "Weather", instructions: "You help with the weather.", tools: [weather] });

/** The `database` option for a backend: a PGlite instance, or the Postgres URL in a fresh schema. */
function databaseFor(backend: BackendName): { database: DatabaseOption; schema?: string; done(): Promise<void> } {
  if (backend === "postgres") return { database: process.env.DATABASE_URL!, schema: testSchema(), done: async () => {} };
  const pglite = testPglite();
  return { database: pglite, done: () => pglite.close() };
}

/** The auth hook of the test app: `x-user: <tenant>` signs in, anything else is refused. */
const auth = (req: Request) => {
  const user = req.get("x-user");
  return user ? { tenantId: user } : null;
};

describe.each(backends())("router() mounted in an application on %s", (backend) => {
  for (const mount of ["/ai", "/v2/agents-api"]) {
    describe(`under ${mount}`, () => {
      let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
      let app: LibraryApp;
      let db: ReturnType<typeof databaseFor>;

      beforeAll(async () => {
        upstream = await startGatedUpstream();
        db = databaseFor(backend);
        app = await startLibraryApp({ llmUrl: upstream.url, mount, agents: [assistant], database: db.database, schema: db.schema, auth });
      });
      afterAll(async () => {
        await app?.close();
        await db?.done();
        await upstream?.mock.stop();
      });

      it("leaves the application's own routes answering", async () => {
        expect(await (await fetch(`${app.url}/`)).text()).toBe("my app");
        expect(await (await fetch(`${app.url}/mine/status`)).json()).toEqual({ mine: true });
      });

      it.each(CLIENT_VERSIONS)("runs @ag-ui/client %s through the mount", async (version) => {
        const threadId = `mount-${version}-${mount.replaceAll("/", "_")}`;
        const out = await runClient(version, {
          url: `${app.url}${mount}/agents/assistant/run`,
          headers: { "x-user": "acme" },
          input: { threadId, messages: [{ id: `u-${version}`, role: "user", content: "hello there" }] },
        });
        expect(out.error?.message).toBeUndefined();
        const types = out.events.map((e) => e.type);
        expect(types[0]).toBe("RUN_STARTED");
        expect(types).toContain("TEXT_MESSAGE_CONTENT");
        expect(types.at(-1)).toBe("RUN_FINISHED");
        // The thread is the hook's tenant's, and reads back through the same mount.
        const thread = await fetch(`${app.url}${mount}/threads/${threadId}`, { headers: { "x-user": "acme" } });
        expect(thread.status).toBe(200);
        expect((await app.threadline.store.getThread(threadId))?.tenantId).toBe("acme");
        expect((await fetch(`${app.url}${mount}/threads/${threadId}`, { headers: { "x-user": "other" } })).status).toBe(404);
      });

      it("answers an unknown path under the mount with a JSON 404 that names the mount", async () => {
        const res = await fetch(`${app.url}${mount}/no/such/route`, { headers: { "x-user": "acme" } });
        expect(res.status).toBe(404);
        expect(res.headers.get("content-type")).toMatch(/application\/json/);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe("NOT_FOUND");
        expect(body.error.message).toContain(`mounted at ${mount}`);
        expect(body.error.message).toContain(`GET ${mount}/agents`);
        expect(body.error.message).not.toMatch(/\/api\//);
      });

      it("names routes under the mount in its messages, not /api", async () => {
        const res = await fetch(`${app.url}${mount}/agents/nobody/run`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-user": "acme" },
          body: JSON.stringify({ threadId: "t", runId: "r", messages: [], state: {}, tools: [], context: [] }),
        });
        expect(res.status).toBe(404);
        const body = (await res.json()) as { error: { message: string } };
        expect(body.error.message).toContain(`GET ${mount}/agents lists`);
      });

      it("answers 401 when the auth hook refuses, and writes nothing", async () => {
        const threadId = `refused-${mount.replaceAll("/", "_")}`;
        const res = await fetch(`${app.url}${mount}/agents/assistant/run`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ threadId, runId: "r-refused", messages: [{ id: "u", role: "user", content: "hi" }], state: {}, tools: [], context: [] }),
        });
        expect(res.status).toBe(401);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
        expect(await app.threadline.store.getThread(threadId)).toBeNull();
        expect(await app.threadline.store.read(threadId)).toEqual([]);
      });
    });
  }
});
