/**
 * The thread status as a wire shape (zod). The lifecycle rules themselves (statuses,
 * transitions, what each event does) live in protocol/lifecycle.ts; they are re-exported here
 * for the modules that import them from this file.
 */
import { z } from "zod";
import { THREAD_STATUSES } from "./lifecycle.ts";

export const ThreadStatusSchema = z.enum(THREAD_STATUSES);

export {
  ACTIVE_STATUSES,
  assertTransition,
  canTransition,
  IllegalTransitionError,
  isActive,
  isSettled,
  SETTLED_STATUSES,
  statusAfter,
  type ThreadStatus,
} from "./lifecycle.ts";
