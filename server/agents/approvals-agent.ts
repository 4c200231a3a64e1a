/**
 * The built-in `approvals` agent: backend steps that wait for a person, durably.
 * - send_email needs approval (`needsApproval: true`): the run ends WAITING with an approval
 *   interrupt (reason tool_call); approved, the email is "sent" (appended to state.outbox) exactly
 *   once, with the user's edits if they made some; denied, it is not, and the model says so. Two
 *   emails at once are asked together.
 * - schedule_meeting (`{title}`, or the dojo interrupt agent's `{topic, attendee?}`) asks for a
 *   time slot with `ctx.interrupt()`; the answer `{slot}` books it, as does the AG-UI dojo
 *   interrupt page's own `{chosen_time, chosen_label}` (the time it offered), once;
 *   `{cancelled: true}`, or a cancelled interrupt, books nothing.
 * The demo model answers "email" and "meeting" (server/demo/approvals-fixtures.ts).
 */
import {
  APPROVAL_TOOLS,
  MEETING_RESPONSE_JSON_SCHEMA,
  MEETING_SLOTS,
  MeetingAnswerSchema,
  ScheduleMeetingArgsSchema,
  type ScheduleMeetingArgs,
  type MeetingAnswer,
  SendEmailArgsSchema,
  type SendEmailArgs,
} from "../demo/approvals-fixtures.ts";
import { defineAgent, defineTool, type AgentDefinition } from "./define.ts";

export const APPROVALS_AGENT_ID = "approvals";

export interface ApprovalsAgentOptions {
  /** Called once per email actually sent (tests count side effects with it). */
  onSend?: (email: SendEmailArgs, at: { threadId: string; toolCallId: string }) => void | Promise<void>;
  /** Another id for this agent (a second copy with other options on one server). */
  id?: string;
  /** How long an email's approval can be given (needsApproval's expiresInMs); default: no expiry. */
  approvalExpiresInMs?: number;
  /** How long the meeting's question can be answered (ctx.interrupt's expiresInMs); default: no expiry. */
  slotExpiresInMs?: number;
}

/** What the model reads: the slot booked (the label a page showed, else its time), or nothing booked. */
function booking(title: string, answer: MeetingAnswer) {
  if ("cancelled" in answer) return { booked: false, title, reason: "The user cancelled: no meeting was booked." };
  if ("slot" in answer) return { booked: true, title, slot: answer.slot };
  return { booked: true, title, slot: answer.chosen_label ?? answer.chosen_time, at: answer.chosen_time };
}

/** The title the question and the booking show: this app's `title`, else the dojo's `topic`. */
function meetingTitle(args: ScheduleMeetingArgs): string {
  return args.title ?? args.topic!;
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function approvalsAgent(opts: ApprovalsAgentOptions = {}): AgentDefinition {
  const sendEmail = defineTool({
    name: APPROVAL_TOOLS.sendEmail,
    description: "Sends an email. The user approves every email before it goes out.",
    inputSchema: SendEmailArgsSchema,
    needsApproval: opts.approvalExpiresInMs === undefined ? true : { expiresInMs: opts.approvalExpiresInMs },
    async execute(email, ctx) {
      await opts.onSend?.(email, { threadId: ctx.threadId, toolCallId: ctx.toolCallId });
      const outbox = asRecord(ctx.state.get()).outbox;
      await ctx.state.patch(
        Array.isArray(outbox) ? [{ op: "add", path: "/outbox/-", value: email }] : [{ op: "add", path: "/outbox", value: [email] }],
      );
      return { sent: true, to: email.to, subject: email.subject };
    },
  });

  const scheduleMeeting = defineTool({
    name: APPROVAL_TOOLS.scheduleMeeting,
    description: "Books a meeting; asks the user which time slot to take.",
    inputSchema: ScheduleMeetingArgsSchema,
    async execute(args, ctx) {
      const title = meetingTitle(args);
      // Nothing is written before the question: this part runs again when the answer comes. The
      // answer was checked against the responseSchema at admission; parsed again for its type.
      const answer = MeetingAnswerSchema.parse(
        await ctx.interrupt({
          reason: "threadline:choose_slot",
          message: `When should "${title}" take place?`,
          payload: { title, ...(args.attendee !== undefined && { attendee: args.attendee }), options: [...MEETING_SLOTS] },
          responseSchema: MEETING_RESPONSE_JSON_SCHEMA,
          ...(opts.slotExpiresInMs !== undefined && { expiresInMs: opts.slotExpiresInMs }),
        }),
      );
      return booking(title, answer);
    },
  });

  return defineAgent({
    id: opts.id ?? APPROVALS_AGENT_ID,
    description: "Backend tools that wait for you: an email that needs your approval, a meeting that asks for a time.",
    greeting: "Some of my tools wait for you: an email needs your approval, a meeting asks for a time.",
    suggestions: ["Email the team a status update", "Schedule a meeting about the launch"],
    instructions:
      "You help with email and meetings. Use send_email to send email (the user approves it first) and " +
      "schedule_meeting to book a meeting (the user picks the time). Be brief.",
    tools: [sendEmail, scheduleMeeting],
    maxTurns: 6,
  });
}
