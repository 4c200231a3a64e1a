/**
 * The malformed-request corpus. Each entry says what Threadline answers (status, error code, the
 * `issues` paths of a 400) and whether the request is malformed for ANY AG-UI server ("standard":
 * a RunAgentInput schema violation or a body that is not JSON), in which case it also runs against
 * AGUI_URL, where only a 4xx without a stream is required. The others test rules of this server
 * (its size limit, its id rules, its options, its agent routes).
 */
import { randomUUID } from "node:crypto";

export interface BadRequest {
  name: string;
  status: number;
  code: string;
  /** For a 400 INVALID_RUN_INPUT: exactly the paths the body's `issues` must name. */
  issues?: string[];
  standard: boolean;
  /** Posted to this agent instead of the suite's (an agent the server does not host). */
  agent?: string;
  /** Sent as is when a string or Buffer (with this content type; none if null), else as JSON. */
  body: unknown;
  contentType?: string | null;
  headers?: Record<string, string>;
  /** The thread the request names, if any: no row may exist for it afterwards. */
  threadId?: string;
  runId?: string;
}

const UNKNOWN_AGENT = "no-such-agent";

export function badRequests(): BadRequest[] {
  const list: BadRequest[] = [];
  const add = (
    name: string,
    expect: { status: number; code: string; issues?: string[]; standard: boolean },
    make: (ids: { threadId: string; runId: string }) => Omit<BadRequest, "name" | "status" | "code" | "issues" | "standard">,
  ) => {
    const ids = { threadId: `bad-${list.length}-${randomUUID().slice(0, 8)}`, runId: `run-${randomUUID()}` };
    list.push({ name, ...expect, threadId: ids.threadId, runId: ids.runId, ...make(ids) });
  };
  const valid = (ids: { threadId: string; runId: string }, extra: Record<string, unknown> = {}) => ({
    threadId: ids.threadId,
    runId: ids.runId,
    messages: [{ id: `u-${ids.runId}`, role: "user", content: "hello" }],
    ...extra,
  });
  const invalid = (issues: string[], standard = true) => ({ status: 400, code: "INVALID_RUN_INPUT", issues, standard });
  const user = (id: string) => ({ id, role: "user", content: "hi" });

  // ---- not JSON (415 comes first of all) ----
  add("text/plain body", { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", standard: true }, (ids) => ({
    body: JSON.stringify(valid(ids)),
    contentType: "text/plain",
  }));
  add("no Content-Type", { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", standard: true }, (ids) => ({
    body: Buffer.from(JSON.stringify(valid(ids))),
    contentType: null,
  }));
  add("form-urlencoded body", { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", standard: true }, (ids) => ({
    body: `threadId=${ids.threadId}&runId=${ids.runId}`,
    contentType: "application/x-www-form-urlencoded",
  }));
  add("text/plain to an unknown agent (415 before 404)", { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", standard: false }, (ids) => ({
    body: JSON.stringify(valid(ids)),
    contentType: "text/plain",
    agent: UNKNOWN_AGENT,
  }));
  // ---- not parseable ----
  add("invalid JSON", { status: 400, code: "INVALID_JSON", standard: true }, (ids) => ({
    body: `{"threadId": "${ids.threadId}", "runId": `,
    contentType: "application/json",
  }));
  add("a JSON string instead of an object", { status: 400, code: "INVALID_JSON", standard: true }, () => ({
    body: '"hello"',
    contentType: "application/json",
  }));
  add("a JSON array instead of an object", invalid(["(root)"]), () => ({ body: "[]", contentType: "application/json" }));
  // ---- too large (413 before 404) ----
  const huge = "x".repeat(4 * 1024 * 1024 + 1024);
  add("body over 4 MB", { status: 413, code: "PAYLOAD_TOO_LARGE", standard: false }, (ids) => ({
    body: valid(ids, { messages: [{ id: "u1", role: "user", content: huge }] }),
  }));
  add("body over 4 MB to an unknown agent (413 before 404)", { status: 413, code: "PAYLOAD_TOO_LARGE", standard: false }, (ids) => ({
    body: valid(ids, { messages: [{ id: "u1", role: "user", content: huge }] }),
    agent: UNKNOWN_AGENT,
  }));
  // ---- unknown agent (404 before 400) ----
  add("unknown agent", { status: 404, code: "AGENT_NOT_FOUND", standard: false }, (ids) => ({ body: valid(ids), agent: UNKNOWN_AGENT }));
  add("invalid input to an unknown agent (404 before 400)", { status: 404, code: "AGENT_NOT_FOUND", standard: false }, (ids) => ({
    body: { threadId: ids.threadId },
    agent: UNKNOWN_AGENT,
  }));
  // ---- RunAgentInput schema ----
  add("missing threadId", invalid(["threadId"]), (ids) => ({ body: { runId: ids.runId, messages: [] } }));
  add("missing runId", invalid(["runId"]), (ids) => ({ body: { threadId: ids.threadId, messages: [] } }));
  add("missing messages", invalid(["messages"]), (ids) => ({ body: { threadId: ids.threadId, runId: ids.runId } }));
  add("empty object", invalid(["threadId", "runId", "messages"]), () => ({ body: {} }));
  add("threadId is a number", invalid(["threadId"]), (ids) => ({ body: valid(ids, { threadId: 42 }) }));
  add("messages is an object", invalid(["messages"]), (ids) => ({ body: valid(ids, { messages: { 0: user("u1") } }) }));
  add("message with an unknown role", invalid(["messages.0.role"]), (ids) => ({
    body: valid(ids, { messages: [{ id: "u1", role: "robot", content: "beep" }] }),
  }));
  add("user message without content", invalid(["messages.0.content"]), (ids) => ({
    body: valid(ids, { messages: [{ id: "u1", role: "user" }] }),
  }));
  add("tool message without toolCallId", invalid(["messages.1.toolCallId"]), (ids) => ({
    body: valid(ids, { messages: [user("u1"), { id: "t1", role: "tool", content: "42" }] }),
  }));
  add("message id is a number", invalid(["messages.0.id"]), (ids) => ({
    body: valid(ids, { messages: [{ id: 7, role: "user", content: "hi" }] }),
  }));
  add("assistant content null", invalid(["messages.1.content"]), (ids) => ({
    body: valid(ids, { messages: [user("u1"), { id: "a1", role: "assistant", content: null }] }),
  }));
  add("tools is not an array", invalid(["tools"]), (ids) => ({ body: valid(ids, { tools: "change_background" }) }));
  add("tool without a name", invalid(["tools.0.name"]), (ids) => ({ body: valid(ids, { tools: [{ description: "nameless" }] }) }));
  add("context entry without value", invalid(["context.0.value"]), (ids) => ({
    body: valid(ids, { context: [{ description: "user name" }] }),
  }));
  add("forwardedProps null", invalid(["forwardedProps"]), (ids) => ({ body: valid(ids, { forwardedProps: null }) }));
  add("resume entry with a bad status", invalid(["resume.0.status"]), (ids) => ({
    body: valid(ids, { resume: [{ interruptId: "i1", status: "maybe" }] }),
  }));
  // ---- this server's rules ----
  add("empty threadId", invalid(["threadId"], false), (ids) => ({ body: valid(ids, { threadId: "" }) }));
  add("blank runId", invalid(["runId"], false), (ids) => ({ body: valid(ids, { runId: "   " }) }));
  add("threadId over 200 characters", invalid(["threadId"], false), (ids) => ({ body: valid(ids, { threadId: "t".repeat(201) }) }));
  add("empty message id", invalid(["messages.0.id"], false), (ids) => ({
    body: valid(ids, { messages: [{ id: "", role: "user", content: "hi" }] }),
  }));
  add("duplicate message ids", invalid(["messages.1.id"], false), (ids) => ({
    body: valid(ids, { messages: [user("same"), user("same")] }),
  }));
  add("bad double-texting option", invalid(["forwardedProps.threadline.doubleTexting"], false), (ids) => ({
    body: valid(ids, { forwardedProps: { threadline: { doubleTexting: "sometimes" } } }),
  }));
  add("bad on-disconnect option", invalid(["forwardedProps.threadline.onDisconnect"], false), (ids) => ({
    body: valid(ids, { forwardedProps: { threadline: { onDisconnect: "explode" } } }),
  }));
  add("bad double-texting header", invalid(["header x-threadline-double-texting"], false), (ids) => ({
    body: valid(ids),
    headers: { "X-Threadline-Double-Texting": "whenever" },
  }));
  add(
    "several reasons at once",
    invalid(["runId", "messages.1.id", "header x-threadline-on-disconnect"], false),
    (ids) => ({ body: valid(ids, { runId: "", messages: [user("m"), user("m")] }), headers: { "X-Threadline-On-Disconnect": "never" } }),
  );
  return list;
}
