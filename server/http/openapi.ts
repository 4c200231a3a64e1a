/**
 * The OpenAPI 3.1 description of the router (GET <mount>/openapi.json), built from the same zod
 * schemas the routes validate with, so that a field added to a query or a body is described the
 * moment it is accepted. test/server/openapi.test.ts checks it against the router's own route
 * table both ways: every route described, nothing described that is not a route. Responses are
 * described in words: their shapes are the docs' (docs/http-api.md), and AG-UI's for the streams.
 * Rejected: a hand-written openapi.yaml, a second record of every query parameter that would drift.
 */
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { z } from "zod";
import { BackgroundRunBodySchema } from "./background-run-input.ts";
import { ConnectBodySchema, ConnectQuerySchema } from "./routes/connect.ts";
import { SearchQuerySchema } from "./routes/memory.ts";
import { WaitQuerySchema } from "./routes/runs.ts";
import { ThreadPatchSchema } from "./routes/thread-meta.ts";
import { StateQuerySchema } from "./routes/thread-state.ts";
import { EventsQuerySchema, ListQuerySchema, ThreadQuerySchema } from "./routes/threads.ts";
import { FileQuerySchema } from "./routes/workspace.ts";
import { ScheduleBodySchema } from "../schedules/schedule-input.ts";

type Method = "get" | "post" | "patch" | "put" | "delete";

export interface Operation {
  method: Method;
  /** As Express writes it: `/threads/:threadId`. */
  path: string;
  summary: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The success answer: JSON, an SSE stream of AG-UI events, or either by Accept. */
  answers: "json" | "sse" | "json-or-sse" | "text" | "none";
  /** Its success statuses, when not 200 (204 for "none"). */
  statuses?: number[];
  /** Mounted only when the application has them (createRouter's deps). */
  optional?: "schedules" | "memory" | "workspaces";
}

const AGENT = "/agents/:agentId";
const THREAD = "/threads/:threadId";

export const OPERATIONS: readonly Operation[] = [
  { method: "get", path: "/agents", summary: "The agents this server hosts.", answers: "json" },
  { method: "get", path: AGENT, summary: "One agent: its description and AG-UI capabilities.", answers: "json" },
  { method: "post", path: `${AGENT}/run`, summary: "Run the agent on a thread (AG-UI RunAgentInput); streams AG-UI events.", body: RunAgentInputSchema, answers: "sse" },
  { method: "post", path: `${AGENT}/connect`, summary: "Join a thread: its history, then its live run, from a cursor (Last-Event-ID).", body: ConnectBodySchema, query: ConnectQuerySchema, answers: "sse" },
  { method: "get", path: "/threads", summary: "The caller's threads, newest first, a keyset page at a time.", query: ListQuerySchema, answers: "json" },
  { method: "get", path: THREAD, summary: "A thread as a client draws it: messages, state, tool calls, branches.", query: ThreadQuerySchema, answers: "json" },
  { method: "patch", path: THREAD, summary: "Rename or archive a thread.", body: ThreadPatchSchema, answers: "json" },
  { method: "delete", path: THREAD, summary: "Delete a thread and its log.", answers: "none" },
  { method: "get", path: `${THREAD}/events`, summary: "The thread's workflow events: a JSON page, or with Accept: text/event-stream the live log.", query: EventsQuerySchema, answers: "json-or-sse" },
  { method: "post", path: `${THREAD}/cancel`, summary: "Stop the thread's active run, from any instance.", answers: "json" },
  { method: "get", path: `${THREAD}/state`, summary: "The shared state as a tool call saw it.", query: StateQuerySchema, answers: "json" },
  { method: "post", path: `${THREAD}/runs`, summary: "Start a background run: answered at once, its end sent to a webhook.", body: BackgroundRunBodySchema, answers: "json", statuses: [202] },
  { method: "get", path: `${THREAD}/runs/:runId`, summary: "A run's status, waiting for its end when asked.", query: WaitQuerySchema, answers: "json" },
  { method: "get", path: `${THREAD}/workspace`, summary: "The coding agent's workspace of the thread: its files.", answers: "json", optional: "workspaces" },
  { method: "get", path: `${THREAD}/workspace/file`, summary: "One file of the workspace.", query: FileQuerySchema, answers: "text", optional: "workspaces" },
  { method: "get", path: "/schedules", summary: "The caller's schedules.", answers: "json", optional: "schedules" },
  { method: "post", path: "/schedules", summary: "Create a schedule: a cron expression or an interval that starts runs.", body: ScheduleBodySchema, answers: "json", statuses: [201], optional: "schedules" },
  { method: "get", path: "/schedules/:scheduleId", summary: "One schedule.", answers: "json", optional: "schedules" },
  { method: "delete", path: "/schedules/:scheduleId", summary: "Delete a schedule.", answers: "none", optional: "schedules" },
  { method: "post", path: "/schedules/:scheduleId/pause", summary: "Pause a schedule: it starts no run until resumed.", answers: "json", optional: "schedules" },
  { method: "post", path: "/schedules/:scheduleId/resume", summary: "Resume a paused schedule.", answers: "json", optional: "schedules" },
  { method: "get", path: "/schedules/:scheduleId/runs", summary: "The runs a schedule started.", answers: "json", optional: "schedules" },
  { method: "get", path: "/memory/:namespace", summary: "Search the caller's memory in a namespace.", query: SearchQuerySchema, answers: "json", optional: "memory" },
  { method: "get", path: "/memory/:namespace/:key", summary: "One remembered value.", answers: "json", optional: "memory" },
  { method: "put", path: "/memory/:namespace/:key", summary: "Remember a JSON value under a key.", body: z.json(), answers: "json", statuses: [200, 201], optional: "memory" },
  { method: "delete", path: "/memory/:namespace/:key", summary: "Forget a key.", answers: "none", optional: "memory" },
  { method: "get", path: "/openapi.json", summary: "This description.", answers: "json" },
];

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), as a request must be. */
const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
};

const SSE = { "text/event-stream": { schema: { type: "string", description: "AG-UI events, one per SSE frame, each with an id (the cursor for Last-Event-ID)." } } };
const JSON_ANY = { "application/json": { schema: {} } };
const CONTENT: Record<Operation["answers"], Record<string, unknown> | undefined> = {
  json: JSON_ANY,
  sse: SSE,
  "json-or-sse": { ...JSON_ANY, ...SSE },
  text: { "application/octet-stream": { schema: { type: "string" } } },
  none: undefined,
};
const ERROR = {
  description: "An error: `{ error: { code, message, issues? } }`; 4xx for the request (nothing written), 503 with Retry-After for an outage.",
  content: { "application/json": { schema: { type: "object", properties: { error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" }, issues: { type: "array" } }, required: ["code", "message"] } }, required: ["error"] } } },
};

function operationObject(op: Operation) {
  const pathParams = [...op.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1]!, in: "path", required: true, schema: { type: "string" } }));
  const query = op.query ? jsonSchema(op.query) : undefined;
  const props = (query?.properties ?? {}) as Record<string, unknown>;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  const queryParams = Object.entries(props).map(([name, schema]) => ({ name, in: "query", required: required.has(name), schema }));
  const content = CONTENT[op.answers];
  return {
    summary: op.summary,
    operationId: `${op.method}${op.path.replace(/[/:](\w)/g, (_, c: string) => c.toUpperCase()).replace(/\W/g, "")}`,
    ...(pathParams.length + queryParams.length > 0 && { parameters: [...pathParams, ...queryParams] }),
    ...(op.body && { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body) } } } }),
    responses: {
      ...Object.fromEntries((op.statuses ?? [op.answers === "none" ? 204 : 200]).map((status) => [String(status), { description: op.summary, ...(content && { content }) }])),
      default: ERROR,
    },
  };
}

/** The document, for a router mounted at `basePath` (the standalone server's is /api). */
export function openApiDocument(version: string, basePath = "/api"): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const path = op.path.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][op.method] = operationObject(op);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Threadline", version, description: "A durable AG-UI agent server. The routes of its router; health (/healthz, /readyz) and /metrics are served at the application's root." },
    servers: [{ url: basePath }],
    components: { securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "A key of API_KEYS (when set): it names the caller's tenant." } } },
    security: [{}, { apiKey: [] }],
    paths,
  };
}
