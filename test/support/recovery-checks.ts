/**
 * The checks the multi-process recovery tests share: kill an instance in the middle of a run and
 * follow the run to its end from outside (the log, a client that resumes with its cursor, a
 * client that reloads during the outage), with the recovery times recorded; then what every
 * recovered run must leave behind.
 */
import { expect } from "vitest";
import { framesAfter } from "../../protocol/project.ts";
import { CLIENT_VERSIONS, runClient, type ClientOutcome, type ClientVersion } from "./agui-clients.ts";
import {
  HEARTBEAT_MS,
  LEASE_TTL_MS,
  SWEEP_INTERVAL_MS,
  assertStrictlyIncreasing,
  connect,
  getThread,
  isTerminal,
  within,
  type Cluster,
  type LogWatch,
} from "./multiprocess-kit.ts";
import type { ChatRequestBody } from "./scripted-upstream.ts";
import type { ServerProcess } from "./server-process.ts";
import type { SseFrame, SseStream } from "./sse-client.ts";

/** From the kill to the recovering instance's takeover: lease expiry + one sweep, plus slack. */
export const TAKEOVER_BOUND_MS = LEASE_TTL_MS + SWEEP_INTERVAL_MS + 1_500;
/** From the kill to the terminal event: the takeover, then the rest of the run (short here). */
export const SETTLE_BOUND_MS = TAKEOVER_BOUND_MS + 5_000;

export interface Recovery {
  scenario: string;
  /** kill -> workflow.resumed (or the failure) seen in the log */
  takeoverMs: number;
  /** kill -> terminal event seen in the log */
  settledMs: number;
  /** kill -> the recovering instance ready, when it was started after the kill */
  survivorReadyMs?: number;
  by: string;
}

/** Every recovery measured in this process, printed by printRecoveries. */
export const recoveries: Recovery[] = [];

export function printRecoveries(file: string): void {
  if (recoveries.length === 0) return;
  console.info(
    `[recovery] ${file}: lease TTL ${LEASE_TTL_MS} ms, heartbeat ${HEARTBEAT_MS} ms, sweep ${SWEEP_INTERVAL_MS} ms\n` +
      recoveries
        .map(
          (r) =>
            `[recovery] ${r.scenario}: ${r.survivorReadyMs !== undefined ? `${r.by} ready after ${r.survivorReadyMs} ms, ` : ""}` +
            `taken over by ${r.by} after ${r.takeoverMs} ms, settled after ${r.settledMs} ms (from the kill)`,
        )
        .join("\n"),
  );
}

export const lastRole = (body: ChatRequestBody) => body.messages.at(-1)?.role;

/**
 * Kills `victim` with SIGKILL and follows the run to its end from the outside: the client that
 * was streaming from the victim resumes on `survivor` with its cursor, another connects to it
 * with no cursor (a reload during the outage), and the log tells when the run was resumed and
 * settled.
 */
export async function killAndRecover(opts: {
  scenario: string;
  victim: ServerProcess;
  survivor: () => ServerProcess | Promise<ServerProcess>;
  agent: string;
  threadId: string;
  stream: SseStream;
  log: LogWatch;
  /** The client version that reloads during the outage. */
  reloadWith: ClientVersion;
  /** What the agent's onRecovery makes the survivor do: resume the run (default), or fail it. */
  recovery?: "resume" | "fail";
}) {
  const { victim, agent, threadId, stream, log } = opts;
  const cutOff = stream.done.catch(() => undefined); // the connection dies with the process
  const killedAt = Date.now();
  const exit = await victim.kill("SIGKILL");
  expect(exit.signal).toBe("SIGKILL");
  await cutOff;
  const fromA = stream.frames.slice();
  expect(fromA.filter(isTerminal)).toEqual([]);

  const survivor = await opts.survivor();
  // The lease bound runs from the kill, or from the survivor's start when it came up later.
  const boundFrom = Math.max(killedAt, survivor.readyAt);
  const resumed = stream.frames.length > 0 ? await connect(survivor, agent, threadId, fromA.at(-1)!.id) : undefined;
  // A page reload during the outage: the conversation so far, then the run live to its end.
  const reload = runClient(opts.reloadWith, { url: `${survivor.url}/api/agents/${agent}/connect`, input: { threadId } });

  const takeover = await log.waitForType(
    opts.recovery === "fail" ? "workflow.failed" : "workflow.resumed",
    TAKEOVER_BOUND_MS + 5_000,
  );
  const settled = await log.waitFor(
    (e) => e.type === "workflow.suspended" || e.type === "workflow.completed" || e.type === "workflow.failed",
    SETTLE_BOUND_MS + 5_000,
    "the end of the run",
  );
  const record: Recovery = {
    scenario: opts.scenario,
    takeoverMs: takeover.seenAt - killedAt,
    settledMs: settled.seenAt - killedAt,
    ...(boundFrom > killedAt && { survivorReadyMs: boundFrom - killedAt }),
    // workflow.failed names no instance; the survivor is the only one alive then.
    by: (takeover.event.type === "workflow.resumed" && takeover.event.data.owner) || survivor.name,
  };
  recoveries.push(record);
  expect(record.by).toBe(survivor.name);
  expect(takeover.seenAt - boundFrom).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
  expect(settled.seenAt - boundFrom).toBeLessThanOrEqual(SETTLE_BOUND_MS);

  const rest = resumed ? await within(10_000, resumed.done, "the resumed client's response to end") : [];
  const live = await within(10_000, reload, "the reloading client's run to end");
  return { fromA, rest, live, survivor, settled };
}

/** What every recovery must leave: a settled thread, one coherent stream, clients that accept it. */
export async function checkRecoveredRun(cluster: Cluster, opts: {
  survivor: ServerProcess;
  agent: string;
  threadId: string;
  fromA: SseFrame[];
  rest: SseFrame[];
  live: ClientOutcome;
  finalText: string;
}) {
  const { survivor, agent, threadId, fromA, rest, live, finalText } = opts;
  // Never left RUNNING: the run ended normally and the thread waits for the next message.
  const thread = await getThread(survivor, threadId);
  expect(thread.status).toBe("WAITING");
  expect(thread.messages.at(-1)).toMatchObject({ role: "assistant", content: finalText });

  // The client that moved from A to the survivor: no gap, no duplicate, the run to its end.
  const moved = [...fromA, ...rest];
  assertStrictlyIncreasing(moved);
  expect(moved.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
  expect(moved.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", threadId, runId: "r1" });
  const projected = framesAfter(await cluster.store.read(threadId)).map((f) => ({ id: f.id, event: f.event }));
  expect(moved).toEqual(projected);
  expect(await (await connect(survivor, agent, threadId, "0")).done).toEqual(projected);
  // Every message opened was closed, the half-streamed one included, before the run ended.
  const open = new Set<string>();
  for (const f of moved) {
    if (f.event.type === "TEXT_MESSAGE_START") open.add(f.event.messageId as string);
    if (f.event.type === "TEXT_MESSAGE_END") open.delete(f.event.messageId as string);
  }
  expect([...open]).toEqual([]);

  // The reload during the outage followed the recovered run to RUN_FINISHED.
  expect(live.error?.message).toBeUndefined();
  expect(live.failed).toBe(false);
  expect(live.events.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
  expect(live.messages.at(-1)).toMatchObject({ role: "assistant", content: finalText });

  // Both client versions accept the replay of the whole run, cut message and all.
  for (const version of CLIENT_VERSIONS) {
    const out = await runClient(version, {
      url: `${survivor.url}/api/agents/${agent}/connect`,
      input: { threadId },
      headers: { "Last-Event-ID": "0" },
    });
    expect(out.error?.message, `@ag-ui/client ${version}`).toBeUndefined();
    expect(out.failed).toBe(false);
    expect(out.events.map((e) => e.type).filter((t) => t === "RUN_FINISHED" || t === "RUN_ERROR")).toEqual(["RUN_FINISHED"]);
    expect(out.messages.at(-1)).toMatchObject({ role: "assistant", content: finalText });
  }
  return moved;
}

/** Only these may run: another live instance (say a pre-spawned one left by a filtered run) would recover runs too. */
export async function onlyAlive(cluster: Cluster, ...keep: ServerProcess[]): Promise<void> {
  await Promise.all(cluster.servers.filter((s) => s.alive && !keep.includes(s)).map((s) => s.kill("SIGKILL")));
}
