/**
 * What a remote agent sends that Threadline does not model (server/engine/foreign/ingest.ts): its
 * CUSTOM and RAW events are kept in the log and replayed as they came, on the other instance too;
 * an event of a type AG-UI does not define is kept whole as RAW (source UNKNOWN_EVENT_SOURCE); one
 * over FOREIGN_EVENT_MAX_BYTES is dropped. The remote is the Node one on @ag-ui/encoder; the
 * clients are the real @ag-ui/client 1.0.0 and 0.0.59 (their schemas judge the frames).
 */
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FOREIGN_EVENT_MAX_BYTES, UNKNOWN_EVENT_SOURCE } from "../../protocol/events.ts";
import { remoteAgent } from "../../server/agents/remote-agent.ts";
import type { EventStore } from "../../server/store/types.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { type RemoteFixture, startNodeRemote } from "../support/remote-agui.ts";
import { backends, type TestServer } from "../support/server.ts";
import { startTwoInstances, type TwoInstances } from "../support/two-instances.ts";
import { postSse, type SseFrame } from "../support/sse-client.ts";

const user = (id: string, content: string): Message => ({ id, role: "user", content });
const kept = (frames: SseFrame[]) => frames.filter((f) => f.event.type === "CUSTOM" || f.event.type === "RAW").map((f) => f.event);
const EXPECTED = [
  { type: "CUSTOM", name: "progress", value: { step: 1, of: 2 } },
  { type: "RAW", event: { vendor: "acme", kind: "trace" }, source: "acme-sdk" },
  { type: "RAW", event: { type: "VENDOR_THING", payload: { n: 1 } }, source: UNKNOWN_EVENT_SOURCE },
];

describe.each(backends())("a remote agent's CUSTOM, RAW and unknown events on %s", (backend) => {
  let remote: RemoteFixture;
  let instances: TwoInstances;
  let store: EventStore;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    remote = await startNodeRemote();
    instances = await startTwoInstances(backend, { agents: () => [remoteAgent({ id: "remote", url: remote.url })] });
    ({ a, b, store } = instances);
  }, 60_000);
  afterAll(async () => {
    await instances?.close();
    await remote?.close();
  });

  it("kept in the log, streamed live, and replayed by the other instance as they came; the one over the bound is dropped and the run goes on", async () => {
    const threadId = `remote-custom-${backend}-${Date.now()}`;
    const live = await (await postSse(`${a.url}/api/agents/remote/run`, { threadId, runId: "r1", messages: [user("u1", "custom")], state: {}, tools: [], context: [], forwardedProps: {} })).done;
    expect(live.at(-1)?.event.type).toBe("RUN_FINISHED");
    expect(kept(live)).toMatchObject(EXPECTED);
    const replay = await (await postSse(`${b.url}/api/agents/remote/connect`, { threadId, lastSeenEventId: "0" })).done;
    expect(kept(replay)).toMatchObject(EXPECTED);
    const log = (await store.read(threadId)).filter((e) => e.type === "custom.emitted" || e.type === "raw.emitted");
    expect(log.map((e) => e.type)).toEqual(["custom.emitted", "raw.emitted", "raw.emitted"]);
    expect(JSON.stringify(log).length).toBeLessThan(FOREIGN_EVENT_MAX_BYTES);
  });

  it.each(CLIENT_VERSIONS)("@ag-ui/client %s takes them (its schema checks every frame) and ends the run cleanly", async (version) => {
    const threadId = `remote-custom-${backend}-${version}-${Date.now()}`;
    const run = await runClient(version, { url: `${a.url}/api/agents/remote/run`, input: { threadId, runId: "r1", messages: [user("u1", "custom")] } });
    expect(run.error?.message).toBeUndefined();
    expect(run.failed).toBe(false);
    expect(run.messages.at(-1)).toMatchObject({ role: "assistant", content: "You said: custom. This is turn 1. " });
  });
});
