/**
 * Reading a chat request the way the demo script needs: the last user message, the tools on
 * offer, the application context, the tool results that just came back; and building tool calls
 * whose ids are a function of the request, so a re-issued request gets the same ids.
 */
import { createHash } from "node:crypto";
import { carriesToolImages } from "../models/openai/messages.ts";
import type { DemoChatMessage, DemoChatRequest } from "./fixture.ts";

export function text(content: DemoChatMessage["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((p) => p.text ?? "").join("");
}

/**
 * The conversation as the script reads it: without the user messages that only carry a tool's
 * images. Chat Completions takes no image in a tool message, so openai/messages.ts sends a tool's
 * image parts as a user message right after its tool message; read as the user's next turn, a
 * tool that returned a chart got called again, turn after turn, until MAX_TURNS_EXCEEDED.
 */
export function turns(req: DemoChatRequest): DemoChatMessage[] {
  return req.messages.filter((m, i) => !carriesToolImages(m, req.messages[i - 1]));
}

/** The role of the last message of the conversation (turns above): "tool" for a tool's follow-up. */
export function lastRole(req: DemoChatRequest): string | undefined {
  return turns(req).at(-1)?.role;
}

export function lastUserText(req: DemoChatRequest): string {
  const user = turns(req).findLast((m) => m.role === "user");
  return user ? text(user.content) : "";
}

/** How many images the last user message carries (its image_url parts); 0 after a tool's result. */
export function lastUserImages(req: DemoChatRequest): number {
  const last = turns(req).at(-1);
  if (last?.role !== "user" || typeof last.content === "string") return 0;
  return (last.content ?? []).filter((p) => p.type === "image_url").length;
}

/** True when the request is a fresh user turn (not the follow-up to a tool result). */
export function endsWithUser(req: DemoChatRequest): boolean {
  return lastRole(req) === "user";
}

export function offers(req: DemoChatRequest, tool: string): boolean {
  return (req.tools ?? []).some((t) => t.function.name === tool);
}

/**
 * One entry of the application context (RunAgentInput.context), which the engine appends to the
 * system prompt as "- <description>: <value>" lines; the first whose description contains `key`.
 */
export function contextValue(req: DemoChatRequest, key: string): string | undefined {
  const system = req.messages.filter((m) => m.role === "system").map((m) => text(m.content)).join("\n");
  const needle = key.toLowerCase();
  for (const line of system.split("\n")) {
    const m = /^- ([^:]*): (.*)$/.exec(line);
    if (m && m[1]!.toLowerCase().includes(needle)) return m[2];
  }
  return undefined;
}

export interface AnsweredCall {
  name: string;
  args: Record<string, unknown>;
  result: string;
}

/** The tool results after the last user message, with the calls they answer. */
export function answeredCalls(req: DemoChatRequest): AnsweredCall[] {
  const messages = turns(req);
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const m of messages) for (const c of m.tool_calls ?? []) calls.set(c.id, c.function);
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  return messages.slice(lastUser + 1).flatMap((m) => {
    const call = m.role === "tool" && m.tool_call_id ? calls.get(m.tool_call_id) : undefined;
    return call ? [{ name: call.name, args: parseObject(call.arguments), result: text(m.content) }] : [];
  });
}

export function lastResultIs(tool: string) {
  return (req: DemoChatRequest) => lastRole(req) === "tool" && answeredCalls(req).at(-1)?.name === tool;
}

export function parseObject(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Stable per conversation and position, so a re-issued request gets the same ids. */
function callId(req: DemoChatRequest, i: number): string {
  const hash = createHash("sha256").update(JSON.stringify(req.messages)).update(String(i));
  return `call_${hash.digest("hex").slice(0, 24)}`;
}

export function toolCall(req: DemoChatRequest, i: number, name: string, args: object) {
  return { id: callId(req, i), name, arguments: JSON.stringify(args) };
}

export function captured(message: string, re: RegExp, fallback: string): string {
  return re.exec(message)?.[1]?.trim() || fallback;
}
