/**
 * A remote agent's run when the Threadline instance reading its stream dies (SIGKILL), across
 * processes on one Postgres schema: the remote sees the connection drop, the run is not sent to
 * it again, and the surviving instance ends it with one RUN_ERROR REMOTE_RUN_LOST within the lease
 * bound, which a follower that resumes by cursor and a reloading client both get.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWN_READY_BOUND_MS } from "../support/server-process.ts";
import { framesAfter } from "../../protocol/project.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { DATABASE_URL, assertStrictlyIncreasing, getThread, isContent, isTerminal, noticeSkip, postRun, startCluster, within, type Cluster } from "../support/multiprocess-kit.ts";
import { eventually } from "../support/frame-checks.ts";
import { killAndRecover, printRecoveries } from "../support/recovery-checks.ts";
import { startNodeRemote, type RemoteFixture } from "../support/remote-agui.ts";
import type { ServerProcess } from "../support/server-process.ts";

noticeSkip("multiprocess-remote");

describe.skipIf(!DATABASE_URL)("a remote agent's run across processes", () => {
  let cluster: Cluster;
  let remote: RemoteFixture;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    remote = await startNodeRemote();
    cluster = await startCluster();
    const env = { CHILD_AGENTS: "remote", CHILD_REMOTE_URL: remote.url };
    [a, b] = await Promise.all([cluster.spawn("A", env), cluster.spawn("B", env)]);
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    printRecoveries("multiprocess-remote");
    await cluster?.close();
    await remote?.close();
  }, 30_000);

  it("SIGKILL of the instance reading the remote: REMOTE_RUN_LOST from the survivor, never re-sent", async () => {
    const threadId = `mp-remote-${Date.now()}`;
    const log = cluster.watch(threadId);
    const stream = await postRun(a, "remote", { threadId, runId: "r1", text: "hold until lost" });
    await within(10_000, stream.waitFor((f) => isContent(f) && stream.frames.filter(isContent).length >= 2), "two chunks on A's stream");

    const { fromA, rest, live, survivor } = await killAndRecover({
      scenario: "SIGKILL while reading a remote agent's stream", victim: a, survivor: () => b,
      agent: "remote", threadId, stream, log, reloadWith: "1.0.0", recovery: "fail",
    });
    expect((await getThread(survivor, threadId)).status).toBe("FAILED");
    const moved = [...fromA, ...rest];
    assertStrictlyIncreasing(moved);
    expect(moved.filter(isTerminal).map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "REMOTE_RUN_LOST" })]);
    expect(moved).toEqual(framesAfter(await cluster.store.read(threadId)).map((f) => ({ id: f.id, event: f.event })));
    expect(live.failed).toBe(false);
    expect(live.events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "REMOTE_RUN_LOST" });
    for (const version of CLIENT_VERSIONS) {
      const out = await runClient(version, { url: `${survivor.url}/api/agents/remote/connect`, input: { threadId }, headers: { "Last-Event-ID": "0" } });
      expect(out.error?.message, `@ag-ui/client ${version}`).toBeUndefined();
      expect(out.events.filter((e) => e.type === "RUN_ERROR" || e.type === "RUN_FINISHED")).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "REMOTE_RUN_LOST" })]);
    }
    // The remote got the run once, and saw its reader go away with the process.
    expect((await remote.received()).filter((r) => r.threadId === threadId)).toHaveLength(1);
    // The remote streams until its reader goes, so only the kill can end its response; it learns
    // of it when the socket closes, which can come after the survivor has ended the run.
    expect(await eventually(() => remote.disconnects(), (d) => d.includes("r1"), "the remote to see its reader go", 15_000)).toContain("r1");

    // Not stuck: the next message goes to the remote, from the survivor, with the conversation.
    const next = await postRun(survivor, "remote", { threadId, runId: "r2", text: "again" });
    expect((await within(10_000, next.done, "the next run")).at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: "r2" });
    const sent = (await remote.received()).filter((r) => r.threadId === threadId);
    expect(sent.map((r) => r.runId)).toEqual(["r1", "r2"]);
    expect(sent[1]!.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["hold until lost", "again"]);
  }, 60_000);
});
