/**
 * The shape every workflow event has: `{type, data}`, where data may name the subagent run whose
 * work it is (protocol/subagent-events.ts). One helper for events.ts and subagent-events.ts, so
 * the attribution is on every event by construction. Rejected: listing `subagentRunId` in each
 * schema that a child may write, a list that a new event type would silently miss (zod strips
 * an undeclared key, and the child's event would land in the log as the parent's).
 */
import { z } from "zod";

/**
 * The subagent run an event belongs to (AG-UI 1.0's `subagentRunId`): absent for the run's own
 * agent. Bounded like the ids a client names.
 */
export const SubagentRunIdSchema = z.string().min(1).max(200);

export function event<T extends string, D extends z.ZodRawShape>(type: T, data: z.ZodObject<D>) {
  return z.object({ type: z.literal(type), data: data.extend({ subagentRunId: SubagentRunIdSchema.optional() }) });
}
