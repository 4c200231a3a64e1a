/**
 * Two server processes on one Postgres schema and one workspace root (WORKSPACE_ROOT, as shared
 * storage would be): the coding agent's run starts on A, writes a file, then runs a command that
 * waits; a client connected to B sees A's live terminal output; A is killed mid-command; B takes
 * the run over, does not write the file again (its result is in the log), runs the command again
 * (at-least-once), and that command sees A's file.
 */
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWN_READY_BOUND_MS } from "../support/server-process.ts";
import { connect, DATABASE_URL, noticeSkip, postRun, startCluster, within, type Cluster } from "../support/multiprocess-kit.ts";
import type { ServerProcess } from "../support/server-process.ts";
import { threadDirName } from "../../server/workspace/workspaces.ts";

noticeSkip("multiprocess-workspace");

const COMMAND = "echo started; while [ ! -e go ]; do sleep 0.05; done; cat notes.txt; echo finished";

describe.skipIf(!DATABASE_URL || !existsSync("/usr/bin/bwrap"))("coding agent across two processes on one workspace root", () => {
  let cluster: Cluster;
  let a: ServerProcess;
  let b: ServerProcess;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "shared-workspaces-"));
    chmodSync(root, 0o711);
    cluster = await startCluster();
    cluster.upstream.script = (body) => {
      const results = body.messages.filter((m) => m.role === "tool").length;
      if (results >= 2) return { text: ["Done."] };
      return {
        toolCalls: [
          { id: `w-${randomUUID().slice(0, 8)}`, name: "write", arguments: JSON.stringify({ path: "notes.txt", content: "written on A\n" }) },
          { id: `b-${randomUUID().slice(0, 8)}`, name: "bash", arguments: JSON.stringify({ command: COMMAND }) },
        ],
      };
    };
    const env = { WORKSPACE_ROOT: root, CHILD_AGENTS: "coding" };
    [a, b] = await Promise.all([cluster.spawn("A", env), cluster.spawn("B", env)]);
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    await cluster?.close();
    rmSync(root, { recursive: true, force: true });
  }, 30_000);

  it("B shows A's live terminal, takes the run over after A dies, and its command sees A's file", async () => {
    const threadId = `ws-${randomUUID().slice(0, 8)}`;
    const log = cluster.watch(threadId);
    const run = await postRun(a, "coding", { threadId, runId: `r-${randomUUID().slice(0, 8)}`, text: "write notes and wait" });
    expect(run.status).toBe(200);
    await log.waitFor((e) => e.type === "terminal.output" && e.data.data.includes("started"), 30_000, "A's command started");

    // A client on the other instance sees A's live terminal output.
    const onB = await connect(b, "coding", threadId);
    const isTerm = (text: string) => (f: { event: { type: string; name?: unknown; value?: unknown } }) =>
      f.event.type === "CUSTOM" && f.event.name === "terminal" && String((f.event.value as { data?: string }).data).includes(text);
    await within(15_000, onB.waitFor(isTerm("started")), "B's client sees A's terminal", () => cluster.output());

    const cutOff = run.done.catch(() => undefined); // A's stream dies with A
    await a.kill("SIGKILL");
    await cutOff;
    writeFileSync(join(root, ".threadline", "threads", threadDirName(threadId), "go"), "");
    await log.waitForType("workflow.resumed", 30_000);
    await within(30_000, onB.waitFor(isTerm("written on A")), "B's command reads A's file", () => cluster.output());
    const frames = await within(30_000, onB.done, "B finishes the run", () => cluster.output());
    expect(frames.at(-1)!.event.type).toBe("RUN_FINISHED");

    const events = log.seen.map((l) => l.event);
    expect(events.filter((e) => e.type === "artifact.written")).toHaveLength(1);
    const terminal = events.filter((e) => e.type === "terminal.output").map((e) => (e.type === "terminal.output" ? e.data.data : "")).join("");
    // At-least-once: the command ran on A (cut off) and again on B.
    expect(terminal.match(/started/g)).toHaveLength(2);
    expect(terminal).toContain("written on A\nfinished\n");
  }, 120_000);
});
