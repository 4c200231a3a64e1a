/**
 * The oracle: the REAL AG-UI clients, both versions this server must satisfy. @ag-ui/client 1.0.0
 * (what an app installs today) and 0.0.59 (what CopilotKit 1.74/1.75 ships and re-verifies with
 * in the browser) parse, verify and apply a stream differently (shared/reference/agui-protocol.md
 * §2.4), so every check runs both, one after the other, and reports each outcome separately.
 *
 * Nothing here re-implements a rule: a stream is accepted when `HttpAgent.runAgent` resolves
 * without `onRunFailed`, and the resulting conversation is whatever the client's own apply stage
 * built. Rejected: validating with the exported `verifyEvents`/schemas piecemeal, which skips the
 * SSE parser, chunk expansion and the 1.0 enforce stage, i.e. exactly where the versions differ.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpAgent as HttpAgent100 } from "@ag-ui/client";
import { HttpAgent as HttpAgent0059 } from "@ag-ui/client-0059";
import type { Message, RunAgentInput } from "@ag-ui/core";

export const CLIENT_VERSIONS = ["1.0.0", "0.0.59"] as const;
export type ClientVersion = (typeof CLIENT_VERSIONS)[number];

/**
 * The terminal frame of a cancelled run as each client gets it: 1.0.0's HttpAgent declares
 * protocolVersion "1.0" and gets 1.0's cancelled outcome; 0.0.59 declares nothing and gets
 * RUN_ERROR CANCELLED (protocol/versions.ts).
 */
export function cancelledEnd(version: ClientVersion): Record<string, unknown> {
  return version === "1.0.0" ? { type: "RUN_FINISHED", outcome: { type: "cancelled" } } : { type: "RUN_ERROR", code: "CANCELLED" };
}

export interface ClientOutcome {
  version: ClientVersion;
  /** Every event the agent observed (onEvent), after parsing, chunk expansion and verification. */
  events: Array<{ type: string; [key: string]: unknown }>;
  /** onRunFailed fired or runAgent rejected. */
  failed: boolean;
  error?: Error;
  /** The agent's messages and state after the run. */
  messages: Message[];
  state: unknown;
  /** console.warn / console.error lines printed during the run (e.g. 1.0's "[ag-ui][enforce] ..."). */
  warnings: string[];
}

export type BothOutcomes = Record<ClientVersion, ClientOutcome>;

interface AgentLike {
  runAgent(params?: object, subscriber?: object): Promise<unknown>;
  use(...middlewares: ((input: RunAgentInput, next: { run(input: RunAgentInput): unknown }) => unknown)[]): unknown;
  messages: unknown[];
  state: unknown;
}
type AgentCtor = new (config: {
  url: string;
  threadId?: string;
  initialMessages?: unknown[];
  initialState?: unknown;
  headers?: Record<string, string>;
}) => AgentLike;

// The two classes are typed against two different @ag-ui/core versions; only this shape is used.
const AGENTS: Record<ClientVersion, AgentCtor> = {
  "1.0.0": HttpAgent100 as unknown as AgentCtor,
  "0.0.59": HttpAgent0059 as unknown as AgentCtor,
};

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A tiny server on 127.0.0.1:<random> that answers every request with `body`. */
export async function serveBody(
  body: string | Uint8Array,
  contentType = "text/event-stream",
): Promise<{ url: string; requests: RecordedRequest[]; close: () => Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-cache" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

export interface RunOptions {
  url: string;
  /**
   * What the client sends: threadId, messages and state seed the agent; runId, tools, context go
   * to runAgent; parentRunId goes in through a middleware.
   */
  input?: Partial<RunAgentInput>;
  headers?: Record<string, string>;
}

/** One run of one client version against `url`. Never throws: a failure is part of the outcome. */
export async function runClient(version: ClientVersion, opts: RunOptions): Promise<ClientOutcome> {
  const { input = {} } = opts;
  const agent = new AGENTS[version]({
    url: opts.url,
    ...(input.threadId !== undefined && { threadId: input.threadId }),
    ...(input.messages !== undefined && { initialMessages: structuredClone(input.messages) }),
    ...(input.state !== undefined && { initialState: structuredClone(input.state) }),
    ...(opts.headers !== undefined && { headers: opts.headers }),
  });
  // runAgent takes no parentRunId: an app branches with a middleware, AG-UI's way to change the
  // RunAgentInput a client sends (both versions have `use`).
  const { parentRunId } = input;
  if (parentRunId !== undefined) agent.use((sent, next) => next.run({ ...sent, parentRunId }));
  const params = {
    ...(input.runId !== undefined && { runId: input.runId }),
    ...(input.tools !== undefined && { tools: input.tools }),
    ...(input.context !== undefined && { context: input.context }),
    ...(input.forwardedProps !== undefined && { forwardedProps: input.forwardedProps }),
    ...(input.resume !== undefined && { resume: input.resume }),
  };
  const outcome: ClientOutcome = { version, events: [], failed: false, messages: [], state: undefined, warnings: [] };
  const fail = (err: unknown) => {
    if (outcome.failed) return;
    outcome.failed = true;
    outcome.error = err instanceof Error ? err : new Error(String(err));
  };
  const subscriber = {
    onEvent: ({ event }: { event: ClientOutcome["events"][number] }) => {
      outcome.events.push(event);
    },
    onRunFailed: ({ error }: { error: unknown }) => fail(error),
  };
  await captureConsole(outcome.warnings, async () => {
    try {
      await agent.runAgent(params, subscriber);
    } catch (err) {
      fail(err);
    }
  });
  outcome.messages = structuredClone(agent.messages) as Message[];
  outcome.state = structuredClone(agent.state);
  return outcome;
}

/** Both versions, one after the other, against a live URL. */
export async function runBothClients(
  opts: Omit<RunOptions, "input"> & { input?: Partial<RunAgentInput> | ((v: ClientVersion) => Partial<RunAgentInput>) },
): Promise<BothOutcomes> {
  const results = {} as BothOutcomes;
  for (const version of CLIENT_VERSIONS) {
    const input = typeof opts.input === "function" ? opts.input(version) : opts.input;
    results[version] = await runClient(version, {
      url: opts.url,
      ...(opts.headers !== undefined && { headers: opts.headers }),
      ...(input !== undefined && { input }),
    });
  }
  return results;
}

/** Both versions against a server that replies with `body` (SSE bytes unless told otherwise). */
export async function checkWithBothClients(
  body: string | Uint8Array,
  opts: { initialMessages?: Message[]; initialState?: unknown; contentType?: string; threadId?: string } = {},
): Promise<BothOutcomes> {
  const server = await serveBody(body, opts.contentType);
  try {
    return await runBothClients({
      url: server.url,
      input: {
        ...(opts.threadId !== undefined && { threadId: opts.threadId }),
        ...(opts.initialMessages !== undefined && { messages: opts.initialMessages }),
        ...(opts.initialState !== undefined && { state: opts.initialState }),
      },
    });
  } finally {
    await server.close();
  }
}

/** Throws, naming the version and its error, unless both versions accepted the stream. */
export function assertAcceptedByBoth(outcomes: BothOutcomes): void {
  const failures = CLIENT_VERSIONS.filter((v) => outcomes[v].failed).map(
    (v) => `@ag-ui/client ${v} rejected the stream: ${outcomes[v].error?.message ?? "(no error)"}`,
  );
  if (failures.length > 0) throw new Error(failures.join("\n"));
}

/**
 * Collects console.warn/error output while `fn` runs instead of printing it. Both clients report
 * non-fatal problems (a stripped field, a patch that did not apply) only there.
 */
async function captureConsole(into: string[], fn: () => Promise<void>): Promise<void> {
  const { warn, error } = console;
  const record = (...args: unknown[]) => {
    into.push(args.map((a) => (typeof a === "string" ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(" "));
  };
  console.warn = record;
  console.error = record;
  try {
    await fn();
  } finally {
    console.warn = warn;
    console.error = error;
  }
}
