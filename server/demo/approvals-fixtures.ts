/**
 * The demo model's script for the `approvals` agent (server/agents/approvals-agent.ts): offline,
 * deterministic, and only for requests that offer that agent's tools, so the default agent's
 * script (fixtures.ts) is untouched. "email" proposes send_email (needs approval), "two emails"
 * proposes two send_email calls at once (asked together), "meeting"
 * proposes schedule_meeting (asks the user for a slot); the follow-ups read the tool's result.
 */
import type { DemoChatRequest, DemoFixture } from "./fixture.ts";
import { z } from "zod";
import { wireJsonSchema } from "../../protocol/json-schema.ts";
import { lastRole, text, turns } from "./request.ts";

export const APPROVAL_TOOLS = { sendEmail: "send_email", scheduleMeeting: "schedule_meeting" } as const;

export const SendEmailArgsSchema = z.object({
  to: z.string().describe("Recipient address"),
  subject: z.string(),
  body: z.string(),
});
export type SendEmailArgs = z.infer<typeof SendEmailArgsSchema>;

/**
 * `{title}` (this app's), or the AG-UI dojo interrupt agent's `{topic, attendee?}`: its recorded
 * fixture and models prompted like it send those. One object with optional fields, not a union:
 * OpenAI takes only an object schema for a tool's parameters, so the "one of the two" rule is a
 * refinement, checked with the arguments (a call with neither gets the error back).
 */
export const ScheduleMeetingArgsSchema = z
  .object({
    title: z.string().min(1).optional().describe("The meeting's title"),
    topic: z.string().min(1).optional().describe("Or: a short description of its purpose"),
    attendee: z.string().min(1).optional().describe("Who the meeting is with, if known"),
  })
  .refine((a) => a.title !== undefined || a.topic !== undefined, { message: "Give the meeting a title (or a topic)." });
export type ScheduleMeetingArgs = z.infer<typeof ScheduleMeetingArgsSchema>;

/** What schedule_meeting asks (ctx.interrupt payload) and the answers it takes (its responseSchema). */
export const MEETING_SLOTS = ["Monday 10:00", "Tuesday 14:00", "Thursday 09:30"] as const;
/** The longest label of a time picked in a page of its own (what the booking shows). */
export const MEETING_LABEL_MAX_CHARS = 200;
/**
 * One of the offered slots (this app's pages: `{slot}`), a time the page offered itself (the AG-UI
 * dojo's interrupt page picks from slots it generates and resolves `{chosen_time, chosen_label}`),
 * or the dojo page's cancel, an answer rather than a cancelled interrupt: `{cancelled: true}`.
 * Exact shapes (no other keys), so an answer that mixes them is refused, not guessed at.
 */
export const MeetingAnswerSchema = z.union([
  z.strictObject({ slot: z.enum(MEETING_SLOTS) }),
  z.strictObject({
    chosen_time: z.iso.datetime({ offset: true }).describe("ISO 8601 date-time of the slot picked"),
    chosen_label: z.string().min(1).max(MEETING_LABEL_MAX_CHARS).optional().describe("How the page showed that time"),
  }),
  z.strictObject({ cancelled: z.literal(true) }),
]);
export type MeetingAnswer = z.infer<typeof MeetingAnswerSchema>;
/** schedule_meeting's responseSchema: what a client reads to render the question, and what its answer is checked against. */
export const MEETING_RESPONSE_JSON_SCHEMA: Record<string, unknown> = wireJsonSchema(MeetingAnswerSchema);

function offersApprovals(req: DemoChatRequest): boolean {
  return (req.tools ?? []).some((t) => t.function.name === APPROVAL_TOOLS.sendEmail);
}

function lastUser(req: DemoChatRequest): string {
  const m = turns(req).findLast((x) => x.role === "user");
  return m ? text(m.content).toLowerCase() : "";
}

/** The name of the call the last tool message answers, and that message's text. */
function lastResult(req: DemoChatRequest): { name: string; result: string } | undefined {
  const last = turns(req).at(-1);
  if (last?.role !== "tool") return undefined;
  for (const m of req.messages) {
    const call = (m.tool_calls ?? []).find((c) => c.id === last.tool_call_id);
    if (call) return { name: call.function.name, result: text(last.content) };
  }
  return undefined;
}

function refused(result: string): boolean {
  return /did not approve|not executed|did not answer|error/i.test(result);
}

export function approvalsFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: (req) => offersApprovals(req) && lastResult(req)?.name === APPROVAL_TOOLS.sendEmail },
      response: (req) => ({
        content: refused(lastResult(req)!.result) ? "Understood: I did not send the email." : "Done: the email is sent.",
      }),
    },
    {
      match: { predicate: (req) => offersApprovals(req) && lastResult(req)?.name === APPROVAL_TOOLS.scheduleMeeting },
      response: (req) => {
        const { result } = lastResult(req)!;
        if (refused(result) || result.includes('"booked":false')) return { content: "No meeting was booked." };
        const slot = (/"slot":"([^"]*)"/.exec(result) ?? [])[1] ?? "the chosen time";
        return { content: `Booked for ${slot}.` };
      },
    },
    {
      match: { predicate: (req) => offersApprovals(req) && lastRole(req) === "user" && lastUser(req).includes("two emails") },
      response: {
        toolCalls: [
          { name: APPROVAL_TOOLS.sendEmail, arguments: JSON.stringify({ to: "team@example.com", subject: "Status update", body: "All green this week." }) },
          { name: APPROVAL_TOOLS.sendEmail, arguments: JSON.stringify({ to: "board@example.com", subject: "Board update", body: "On track." }) },
        ],
      },
    },
    {
      match: { predicate: (req) => offersApprovals(req) && lastRole(req) === "user" && lastUser(req).includes("email") },
      response: {
        toolCalls: [
          {
            name: APPROVAL_TOOLS.sendEmail,
            arguments: JSON.stringify({ to: "team@example.com", subject: "Status update", body: "All green this week." }),
          },
        ],
      },
    },
    {
      match: { predicate: (req) => offersApprovals(req) && lastRole(req) === "user" && lastUser(req).includes("meeting") },
      response: { toolCalls: [{ name: APPROVAL_TOOLS.scheduleMeeting, arguments: JSON.stringify({ title: "Launch sync" }) }] },
    },
    {
      match: { predicate: (req) => offersApprovals(req) },
      response: {
        content: 'I can email the team (say "email") or schedule a meeting (say "meeting"); both wait for your answer.',
      },
    },
  ];
}
