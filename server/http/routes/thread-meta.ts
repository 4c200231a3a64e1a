/**
 * PATCH /threads/:threadId: rename and archive. The body is `{ title?, archived? }` (at least
 * one); `title: null` goes back to the title derived from the first user message. Another
 * tenant's thread is a 404, as an unknown one is. The answer is the thread as the list shows it.
 */
import { Router, type RequestHandler } from "express";
import { z } from "zod";
import type { EventStore } from "../../store/types.ts";
import { callerTenant } from "../auth.ts";
import { sendError, zodIssues } from "../errors.ts";
import { listingJson } from "./thread-json.ts";

/** Longest title a person may give (characters); the list derives shorter ones itself. */
export const TITLE_MAX = 200;

export const ThreadPatchSchema = z
  .object({
    title: z
      .string()
      .trim()
      .min(1, "A title needs at least one character that is not a space; send null to go back to the derived title.")
      .max(TITLE_MAX, `A title is at most ${TITLE_MAX} characters.`)
      // One line of text: control characters (newlines included) would break the list's one line.
      .refine((t) => !/[\u0000-\u001f\u007f]/.test(t), "A title is one line: no control characters or newlines.")
      .nullable()
      .optional(),
    archived: z.boolean().optional(),
  })
  .strict()
  .refine((b) => b.title !== undefined || b.archived !== undefined, "Send `title`, `archived`, or both.");

type ThreadHandler = RequestHandler<{ threadId: string }>;

export function threadMetaRoutes(deps: { store: EventStore }): Router {
  return Router().patch("/threads/:threadId", patchThread(deps));
}

function patchThread({ store }: { store: EventStore }): ThreadHandler {
  return async (req, res) => {
    const body = ThreadPatchSchema.safeParse(req.body ?? {});
    if (!body.success) {
      return sendError(res, 400, "INVALID_THREAD_PATCH", "Fix the fields listed in `issues`: the body is { title?: string | null, archived?: boolean }.", {
        issues: zodIssues(body.error.issues),
      });
    }
    const { threadId } = req.params;
    const updated = await store.updateThread(threadId, body.data, callerTenant(res));
    if (!updated) return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}". It is created by its first run.`);
    res.json(listingJson(updated));
  };
}
