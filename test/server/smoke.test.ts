import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoUpstream } from "../support/demo-upstream.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

describe.each(backends())("smoke on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startDemoUpstream>>;
  let server: TestServer;
  beforeAll(async () => {
    upstream = await startDemoUpstream({ latencyMs: 0 });
    server = await startTestServer({ backend, llmUrl: upstream.url });
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.stop();
  });

  it("answers GET /healthz and /readyz", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it.each(CLIENT_VERSIONS)("streams a chat answer to @ag-ui/client %s", async (version) => {
    const out = await runClient(version, {
      url: `${server.url}/api/agents/default/run`,
      input: { threadId: `smoke-${version}`, messages: [{ id: "u1", role: "user", content: "hello there" }] },
    });
    expect(out.error?.message).toBeUndefined();
    expect(out.failed).toBe(false);
    const types = out.events.map((e) => e.type);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types).toContain("TEXT_MESSAGE_CONTENT");
    expect(types.at(-1)).toBe("RUN_FINISHED");
  });

  it("runs a backend tool and answers with its result", async () => {
    const out = await runClient("1.0.0", {
      url: `${server.url}/api/agents/default/run`,
      input: { threadId: "smoke-weather", messages: [{ id: "u1", role: "user", content: "what is the weather in Paris?" }] },
    });
    expect(out.failed).toBe(false);
    const types = out.events.map((e) => e.type);
    expect(types).toContain("TOOL_CALL_RESULT");
    const thread = (await (await fetch(`${server.url}/api/threads/smoke-weather`)).json()) as { status: string; messages: { role: string }[] };
    expect(thread.status).toBe("WAITING");
    expect(thread.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });
});
