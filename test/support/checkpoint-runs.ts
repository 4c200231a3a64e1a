/**
 * Runs as the engine ends them, at the store's level: each one resumes the thread's fold from its
 * checkpoint (as an admission does), appends a user message and an answer of `tokens` tokens, and
 * ends with the checkpoint as of its terminal event, a patch on the one it resumed from
 * (run-executor.ts). Used by the growth test and the storage bench.
 */
import type { WorkflowEvent } from "../../protocol/events.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";
import type { EventStore } from "../../server/store/types.ts";

/** An answer of `tokens` tokens, ~6 bytes each, hard to compress (as model text is, roughly). */
export function answerText(tokens: number, seed: number): string {
  let x = seed * 2654435761 + 1;
  const words: string[] = [];
  for (let i = 0; i < tokens; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    words.push(x.toString(36).slice(0, 5));
  }
  return words.join(" ");
}

let runs = 0;

/**
 * One run on `threadId` (which exists). `patches: false` stores every checkpoint whole, as the
 * release before patches did: the baseline a growth test compares against.
 */
export async function endedRun(
  store: EventStore,
  threadId: string,
  tokens: number,
  opts: { patches?: boolean; /** stream the answer first, one text.delta per token */ stream?: boolean } = {},
): Promise<void> {
  const runId = `run-${++runs}`;
  const cp = await store.readCheckpoint(threadId);
  const fold = cp ? Reconstructor.from(cp) : new Reconstructor();
  for (const e of await store.read(threadId, { after: fold.lastSeq })) fold.push(e);
  const text = answerText(tokens, runs);
  const messageId = `a-${runs}`;
  const stream: WorkflowEvent[] = opts.stream
    ? [
        { type: "text.started", data: { runId, messageId } },
        ...text.split(" ").map((w, i): WorkflowEvent => ({ type: "text.delta", data: { runId, messageId, delta: i === 0 ? w : ` ${w}` } })),
        { type: "text.ended", data: { runId, messageId } },
      ]
    : [];
  const events: WorkflowEvent[] = [
    { type: "run.accepted", data: { runId, tools: [], context: [] } },
    { type: "workflow.started", data: { runId } },
    { type: "message.appended", data: { runId, source: "input", message: { id: `u-${runs}`, role: "user", content: `question ${runs}` } } },
    ...stream,
    { type: "message.appended", data: { runId, source: "agent", message: { id: messageId, role: "assistant", content: text } } },
  ];
  for (const e of await store.append(threadId, events)) fold.push(e);
  const end: WorkflowEvent = { type: "workflow.completed", data: { runId } };
  fold.push({ ...end, threadId, runId, seq: fold.lastSeq + 1, at: Date.now() } as never);
  await store.append(threadId, [end], { checkpoint: fold.toState(), ...(opts.patches !== false && fold.origin && { checkpointBase: fold.origin }) });
}

/** Bytes on disk of the schema's `tables` (heap, TOAST and indexes; dead rows included). */
export function tableBytesSql(schema: string, tables: readonly string[]): { text: string; params: unknown[] } {
  return {
    text: `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 as bytes
             from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = $1::text and c.relkind = 'r' and c.relname = any($2::text[])`,
    params: [schema, tables],
  };
}

export const CHECKPOINT_TABLES = ["checkpoint_parts", "checkpoints"] as const;
