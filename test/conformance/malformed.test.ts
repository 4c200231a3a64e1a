/**
 * 11. The malformed-request corpus (support/corpus.ts): every request gets the right 4xx with a
 * JSON body naming the reasons (`error.code`, `error.message`, and for a 400 the `issues` paths),
 * before any byte of stream, and NO row is written: no thread, no event, no run for its ids, and
 * the store holds no thread at all once the whole corpus has been sent.
 *
 * Against AGUI_URL only the "standard" entries run (malformed for any AG-UI server), and only a
 * 4xx without an event stream is required there.
 */
import { expect, it } from "vitest";
import { badRequests } from "./support/corpus.ts";
import { conformanceSuite, itLocal, local, TEST_AGENT_ID } from "./support/kit.ts";
import { post } from "./support/sse.ts";
import { IS_REMOTE, noticeSkipped } from "./support/target.ts";

const all = badRequests();
const corpus = all.filter((c) => !IS_REMOTE || c.standard);
if (IS_REMOTE) {
  noticeSkipped(
    `malformed requests: ${all.length - corpus.length} server-specific entries`,
    `they test Threadline's own limits, id rules, options and agent routes: ${all.filter((c) => !c.standard).map((c) => c.name).join("; ")}`,
  );
}

interface ErrorBody {
  error: { code: string; message: string; issues?: Array<{ path: string; message: string }>; agents?: string[] };
}

conformanceSuite("malformed requests", { remote: true }, (target) => {
  it("the corpus has at least 20 malformed requests", () => {
    expect(all.length).toBeGreaterThanOrEqual(20);
    expect(all.filter((c) => c.standard).length).toBeGreaterThanOrEqual(15);
  });

  it.each(corpus.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const t = target();
    const res = await post(t.runUrl(c.agent ?? TEST_AGENT_ID), {
      body: c.body,
      ...(c.contentType !== undefined && { contentType: c.contentType }),
      headers: { Accept: "text/event-stream", ...t.headers, ...c.headers },
    });
    expect(res.headers["content-type"] ?? "").not.toMatch(/event-stream|ag-ui/);
    if (t.remote) {
      expect(res.status, res.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      return;
    }

    expect({ status: res.status, body: res.text.slice(0, 500) }).toMatchObject({ status: c.status });
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const body = res.json as ErrorBody;
    expect(body.error.code).toBe(c.code);
    expect(typeof body.error.message).toBe("string");
    expect(body.error.message.length).toBeGreaterThan(10);
    if (c.issues) {
      const issues = body.error.issues ?? [];
      expect(new Set(issues.map((i) => i.path))).toEqual(new Set(c.issues));
      for (const i of issues) expect(i.message).toEqual(expect.any(String));
    }
    if (c.code === "AGENT_NOT_FOUND") expect(body.error.agents).toEqual(expect.arrayContaining(["default", TEST_AGENT_ID]));

    // Nothing was written for it.
    const { store } = local(t).server;
    if (c.threadId) {
      expect(await store.getThread(c.threadId)).toBeNull();
      expect(await store.read(c.threadId)).toEqual([]);
    }
    if (c.runId && c.threadId) expect(await store.getRun(c.threadId, c.runId)).toBeNull();
  });

  itLocal("the whole corpus left the store without a single thread", async () => {
    const { store } = local(target()).server;
    expect((await store.listThreads({ limit: 200 })).threads).toEqual([]);
  });
});
