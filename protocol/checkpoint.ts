/**
 * A checkpoint: what the reconstruction fold (reconstruct.ts Reconstructor) holds after a
 * position of the log, stored so that a reload, a run's admission or a recovery folds only the
 * events after it instead of the whole thread. It is written at the end of each run, in the
 * commit of the run's terminal event; its `seq` is that position.
 *
 * The schema owns the shape; rows are written only by the store from a fold, so readers trust
 * them (as they trust event rows) rather than parse them again on every reload.
 */
import { MessageSchema, TokenUsageSchema } from "@ag-ui/core/schemas";
import { z } from "zod";
import { BranchForkedSchema, InterruptRequestedSchema, InterruptResolvedSchema } from "./events.ts";

/** A fork as the thread view lists it: the event's data, where it is in the log and when. */
export const BranchInfoSchema = BranchForkedSchema.shape.data.extend({ seq: z.number().int().positive(), at: z.number() });
export type BranchInfo = z.infer<typeof BranchInfoSchema>;
import { ThreadStatusSchema } from "./status.ts";
import { ToolLedgerStateSchema } from "./tool-status.ts";

export const FoldStateSchema = z.object({
  threadId: z.string().optional(),
  status: ThreadStatusSchema.nullable(),
  messages: z.array(MessageSchema),
  state: z.unknown(),
  usage: z.array(TokenUsageSchema),
  /** task id -> tool call id, for the tasks that ran a tool */
  taskToolCalls: z.array(z.tuple([z.string(), z.string()])),
  failedCalls: z.array(z.string()),
  /** What became of each tool call (protocol/tool-status.ts); absent in checkpoints older than it. */
  toolLedger: ToolLedgerStateSchema.optional(),
  lastEndedRunId: z.string().optional(),
  activeRunId: z.string().optional(),
  lastSeq: z.number().int().nonnegative(),
  lastAt: z.number(),
  /** The current branch and every fork so far (absent until the thread's first fork). */
  branch: z.string().optional(),
  branches: z.array(BranchInfoSchema).optional(),
  /** Every interrupt of the thread with its answer, if any (absent in checkpoints older than them). */
  interrupts: z
    .array(
      z.object({
        request: InterruptRequestedSchema.shape.data,
        resolution: InterruptResolvedSchema.shape.data.optional(),
        form: z.enum(["tool", "outcome"]).optional(),
      }),
    )
    .optional(),
});
export type FoldState = z.infer<typeof FoldStateSchema>;

export interface Checkpoint {
  /** the log position the fold stands for */
  seq: number;
  fold: FoldState;
  /**
   * How the store holds it, when as a full fold and patches on it (protocol/checkpoint-patch.ts):
   * the bytes of the full one and of the patches since. The next run's end writes a patch while
   * the patches stay smaller than the full fold, and a full fold otherwise. Absent: the next end
   * writes a full fold.
   */
  parts?: { fullBytes: number; patchBytes: number };
}
