/**
 * One LLM request as a durable task: task.created, the streamed deltas as stream events, then
 * the whole assistant message (and its reasoning) as durable message.appended events, usage,
 * and task.completed. The stream events make live and resumed clients see tokens as they come;
 * the durable message is what reload, recovery and the next LLM request read.
 */
import type { Message } from "@ag-ui/core";
import { toolJsonSchema } from "../agents/tool-json-schema.ts";
import { AnswerEcho } from "./answer-echo.ts";
import { resumesLater, RunAborted, RunFailure } from "./errors.ts";
import { ModelError } from "../models/errors.ts";
import { LlmAnswer } from "./llm-answer.ts";
import { toModelMessages } from "../models/from-agui.ts";
import type { ModelPart, ModelTool } from "../models/model.ts";
import { addTokens } from "./run-end.ts";
import { StorableParts } from "../models/storable-parts.ts";
import { AbortableParts } from "../models/until-aborted.ts";
import { toStorableText } from "../store/storable-text.ts";
import type { RunContext } from "./run-context.ts";
import { stateForModel } from "./state-context.ts";

/** Instructions, then the application's context, then the shared state as of this request. */
export function systemPrompt(ctx: RunContext): string {
  const parts = [ctx.agent.instructionsFor?.({ threadId: ctx.threadId, forwardedProps: ctx.forwardedProps }) ?? ctx.agent.instructions];
  if (ctx.context.length > 0) {
    const lines = ctx.context.map((c) => `- ${c.description}: ${c.value}`);
    parts.push(`Context from the application:\n${lines.join("\n")}`);
  }
  const state = stateForModel(ctx.agent, ctx.state);
  if (state !== "") parts.push(state);
  return parts.join("\n\n");
}

export function modelTools(ctx: RunContext): ModelTool[] {
  const backend = ctx.agent.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: toolJsonSchema(t) }));
  const backendNames = new Set(ctx.agent.tools.map((t) => t.name));
  // A frontend tool may not shadow a backend one: the server's own tool wins, and the client
  // never sees a call it did not expect to execute.
  const frontend = ctx.frontendTools
    .filter((t) => !backendNames.has(t.name))
    .map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: (t.parameters as Record<string, unknown> | undefined) ?? { type: "object", properties: {} },
    }));
  return [...backend, ...frontend];
}

/** Runs LLM request number `turn` of the run (counted across recoveries) and returns the messages it added. */
export async function runLlmTask(ctx: RunContext, turn: number): Promise<Message[]> {
  const { runId, writer } = ctx;
  // Before the task opens: a render function that throws fails the run with its own code.
  const system = systemPrompt(ctx);
  // The random tail keeps task ids unique should two attempts ever share a number.
  const taskId = `${runId}:llm:${turn}:${ctx.ids.message().slice(-8)}`;
  // Committed before the model hears of it: a recovery counts the run's requests from these
  // events (maxTurns), so none may reach the upstream unrecorded, even if this process dies next.
  // Rejected: emitting it with the stream's first events, which left a request the log lacked
  // whenever the process died before that commit. Costs one commit's wait per request.
  await writer.commit({ type: "task.created", data: { runId, taskId, kind: "llm", name: `llm-request-${turn}` } });

  const answer = new LlmAnswer(ctx, taskId);
  // The first request of a run taken over mid-answer is held against what clients already have.
  const cut = ctx.cutAnswer;
  ctx.cutAnswer = undefined;
  const echo = cut && new AnswerEcho(cut, answer, (messageIds) => ctx.writer.emit({ type: "stream.withdrawn", data: { runId, messageIds } }));
  const call = ctx.probe.modelCall(ctx.model.id);
  try {
    await call.within(async () => {
      let first = true;
      const take = (part: ModelPart): void => {
        if (first && isOutput(part)) {
          first = false;
          call.firstToken();
        }
        if (part.type === "usage") {
          const tokens = { inputTokens: part.inputTokens, outputTokens: part.outputTokens, totalTokens: part.totalTokens };
          addTokens(ctx.tokens, tokens);
          call.usage(tokens);
        }
        (echo ?? answer).take(part);
      };
      // Every model's deltas reach the log through the one rule for text it cannot store, and
      // the stream ends at the run's abort whether the model ends it or not (until-aborted.ts).
      // Both are steps of this one loop, not generators around the model's stream: each would
      // be one more hop per token (docs/performance.md, "The hops a token takes").
      const storable = new StorableParts(take);
      const pulls = new AbortableParts(
        ctx.model.stream({
          messages: toModelMessages(ctx.messages, system),
          tools: modelTools(ctx),
          signal: ctx.signal,
          headers: call.traceHeaders(),
        }),
        ctx.signal,
      );
      try {
        for (;;) {
          const next = await pulls.next();
          if (next.done) break;
          storable.push(next.value);
        }
      } finally {
        pulls.close();
      }
      // A Model that ended without a finish part (the engine takes its answer as it is).
      storable.end();
    });
  } catch (err) {
    const error = failed(ctx, taskId, answer, err, echo);
    call.ended(error instanceof RunAborted ? { outcome: "aborted" } : { outcome: "error", code: error.code });
    throw error;
  }
  call.ended({ outcome: "ok" });

  echo?.finish();
  const added = answer.complete();
  writer.emit({ type: "task.completed", data: { runId, taskId } });
  await writer.flush();
  ctx.messages.push(...added);
  return added;
}

/** What the model produced for the user (the first of it is the time to first token); usage and finish are not. */
function isOutput(part: ModelPart): boolean {
  return part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-call-start";
}

/** The error that ends the run when the model's stream threw, after the answer's events were settled. */
function failed(ctx: RunContext, taskId: string, answer: LlmAnswer, err: unknown, echo: AnswerEcho | undefined): RunAborted | RunFailure {
  const reason = ctx.abortReason();
  // Lease or store lost, or shutdown: the run resumes later and asks the model again; nothing is
  // kept (the next instance continues the streamed words, cut-answer.ts).
  if (reason && resumesLater(reason)) {
    answer.abandon();
    return new RunAborted(reason);
  }
  echo?.keepWhatClientsHave();
  answer.keepPartial();
  if (reason) return new RunAborted(reason);
  const code = err instanceof ModelError ? err.code : "LLM_ERROR";
  // A provider's error text is the model's output too: it must not fail the append that reports it.
  const message = toStorableText(err instanceof Error ? err.message : String(err));
  ctx.writer.emit({ type: "task.failed", data: { runId: ctx.runId, taskId, error: { code, message } } });
  return new RunFailure(code, `The model request failed: ${message}`, { cause: err });
}
