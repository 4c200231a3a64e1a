/**
 * A small AG-UI agent as an Express app, for the kit's in-process tests: correct by default,
 * with one fault switched on by name. No model: it greets, calls the first tool it is offered,
 * and answers a tool result; it echoes the run's state in a snapshot and patches it.
 */
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import express, { type Express } from "express";

export type ExpressAgentFault =
  | "wrong-run-id"
  | "bad-delta"
  | "stream-on-bad-input"
  | "crlf"
  | "no-data-prefix"
  | "answers-frontend-tool"
  | "never-calls-tool"
  | "rejects-history"
  | "cancelled-outcome"
  | "never-ends"
  | "huge";

export interface ExpressAgentOptions {
  fault?: ExpressAgentFault;
  /** When set, requests without `Authorization: Bearer <key>` get 401. */
  apiKey?: string;
  /** For the `huge` fault: the length of the string it sends in one CUSTOM event. */
  hugeChars?: number;
}

type Ev = Record<string, unknown> & { type: string };

export function expressAgent(opts: ExpressAgentOptions = {}): Express {
  const { fault } = opts;
  const app = express();
  app.use(express.json());
  app.use((err: Error, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (fault === "stream-on-bad-input") return next();
    res.status(400).json({ error: { code: "INVALID_JSON", message: err.message } });
  });
  app.post("/agent", (req, res) => {
    if (opts.apiKey !== undefined && req.get("authorization") !== `Bearer ${opts.apiKey}`) {
      return void res.status(401).json({ error: { code: "UNAUTHORIZED" } });
    }
    const input = RunAgentInputSchema.safeParse(req.body);
    const write = (e: Ev) => res.write(fault === "crlf" ? `data: ${JSON.stringify(e)}\r\n\r\n` : `data: ${JSON.stringify(e)}\n\n`);
    if (!input.success) {
      if (fault !== "stream-on-bad-input") return void res.status(400).json({ error: { code: "INVALID_INPUT", issues: input.error.issues } });
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      write({ type: "RUN_STARTED", threadId: "?", runId: "?" });
      write({ type: "RUN_ERROR", message: "bad input" });
      return void res.end();
    }
    const { threadId, runId, messages, tools } = input.data;
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    write({ type: "RUN_STARTED", threadId, runId: fault === "wrong-run-id" ? `${runId}-x` : runId });
    if (fault === "no-data-prefix") res.write(`${JSON.stringify({ type: "CUSTOM", name: "bare", value: 1 })}\n\n`);
    if (fault === "huge") write({ type: "CUSTOM", name: "big", value: "x".repeat(opts.hugeChars ?? 0) });
    if (fault === "never-ends") return; // the response stays open: the kit's bound must end it
    if (fault === "rejects-history" && messages.length > 1) {
      write({ type: "RUN_ERROR", message: "history is not supported", code: "NO_HISTORY" });
      return void res.end();
    }
    const state = typeof input.data.state === "object" && input.data.state !== null ? input.data.state : {};
    write({ type: "STATE_SNAPSHOT", snapshot: { ...state, turns: messages.length } });
    const last = messages.at(-1);
    const messageId = `a-${runId}`;
    const tool = tools[0];
    if (tool && last?.role === "user" && fault !== "never-calls-tool") {
      const toolCallId = `call-${runId}`;
      write({ type: "TOOL_CALL_START", toolCallId, toolCallName: tool.name, parentMessageId: messageId });
      write({ type: "TOOL_CALL_ARGS", toolCallId, delta: "{}" });
      write({ type: "TOOL_CALL_END", toolCallId });
      if (fault === "answers-frontend-tool") write({ type: "TOOL_CALL_RESULT", messageId: `r-${runId}`, toolCallId, content: "done" });
    } else {
      const text = last?.role === "tool" ? "The tool has answered." : `Hello, this is turn ${messages.length}.`;
      write({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" });
      write({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: text });
      write({ type: "TEXT_MESSAGE_END", messageId });
      const path = fault === "bad-delta" ? "/missing/turns" : "/turns";
      write({ type: "STATE_DELTA", delta: [{ op: "replace", path, value: messages.length + 1 }] });
    }
    write({ type: "RUN_FINISHED", threadId, runId, ...(fault === "cancelled-outcome" && { outcome: { type: "cancelled" } }) });
    res.end();
  });
  return app;
}
