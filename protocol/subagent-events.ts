/**
 * A subagent run in the log (server/agents/subagent.ts): an agent that another agent's tool call
 * hands work to. The child's own events are the vocabulary every run writes (events.ts), under
 * the parent's `runId` (the parent holds the lease, the AG-UI run is the parent's) and attributed
 * by `data.subagentRunId`; its messages carry `subagentRunId` too (AG-UI 1.0's Message field), so
 * the thread's conversation holds the child's work nested, and the parent's model never reads it.
 *
 * `subagent.started` is written each time the child's task begins executing (the first time, and
 * again after a recovery or an interrupt's answer), `subagent.ended` once per execution that
 * stops it: success (its answer is the parent's tool result), suspended (it waits for the user's
 * answer to `interruptIds`; the parent waits with it), failed, cancelled. Projected as
 * SUBAGENT_STARTED / SUBAGENT_FINISHED / SUBAGENT_ERROR (protocol/project-subagents.ts).
 */
import { z } from "zod";
import { event, SubagentRunIdSchema } from "./event-shape.ts";

const runId = z.string().min(1);

export const SubagentStartedSchema = event(
  "subagent.started",
  z.object({
    runId,
    /** The child's run: its events' and messages' `subagentRunId`. */
    childRunId: SubagentRunIdSchema,
    /** What clients show (SUBAGENT_STARTED.name): the tool's name. */
    name: z.string().min(1),
    /** The agent definition that runs it: a local agent's id, a remote's, an application's. */
    agentId: z.string().min(1),
    description: z.string().optional(),
    /**
     * The parent's tool call that handed the work over, and the assistant message holding it
     * (a foreign agent's own subagent may name neither).
     */
    parentToolCallId: z.string().min(1).optional(),
    parentMessageId: z.string().min(1).optional(),
  }),
);

export const SubagentOutcomeSchema = z.enum(["success", "suspended", "failed", "cancelled"]);

export const SubagentEndedSchema = event(
  "subagent.ended",
  z.object({
    runId,
    childRunId: SubagentRunIdSchema,
    outcome: SubagentOutcomeSchema,
    /** suspended: the interrupts the child waits for. */
    interruptIds: z.array(z.string().min(1)).optional(),
    /** failed / cancelled: why. */
    error: z.object({ code: z.string().min(1), message: z.string() }).optional(),
  }),
);
