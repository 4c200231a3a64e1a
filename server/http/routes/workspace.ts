/**
 * A thread's workspace over HTTP (the coding agent's files): the listing, and one file as
 * text/plain, at most WORKSPACE_FILE_MAX_BYTES (a longer one is cut and says so in headers).
 * The same tenant rule as every thread route: another tenant's thread is a 404, like an
 * unknown one. Paths are opened beneath the workspace exactly as the tools open them (paths.ts),
 * and what is sent is read from the descriptor that was checked. Whatever the path names, the
 * answer is 4xx: 404 nothing there, 400 refused (outside, a device, FIFO or socket), 409 changed
 * while it was opened (a command is moving it: try again).
 */
import { Router } from "express";
import { z } from "zod";
import type { EventStore } from "../../store/types.ts";
import { PathChanged, PathRefused } from "../../workspace/beneath.ts";
import { openInWorkspace } from "../../workspace/paths.ts";
import type { Workspaces } from "../../workspace/workspaces.ts";
import { callerTenant } from "../auth.ts";
import { sendError, zodIssues } from "../errors.ts";

/** Most bytes of a file the file route sends. */
export const WORKSPACE_FILE_MAX_BYTES = 1024 * 1024;

export const FileQuerySchema = z.object({ path: z.string().min(1).max(4096) });

export function workspaceRoutes({ store, workspaces }: { store: EventStore; workspaces: Workspaces }): Router {
  const router = Router();

  router.get("/threads/:threadId/workspace", async (req, res) => {
    const { threadId } = req.params;
    if (!(await store.getThread(threadId, callerTenant(res)))) {
      return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}". It is created by its first run.`);
    }
    const dir = await workspaces.existing(threadId, callerTenant(res));
    if (!dir) return res.json({ files: [], truncated: false });
    try {
      res.json(await workspaces.list(dir));
    } finally {
      await dir.close();
    }
  });

  router.get("/threads/:threadId/workspace/file", async (req, res) => {
    const { threadId } = req.params;
    const q = FileQuerySchema.safeParse(req.query);
    if (!q.success) {
      return sendError(res, 400, "INVALID_QUERY", "Name the file with ?path= (relative to the workspace).", { issues: zodIssues(q.error.issues) });
    }
    if (!(await store.getThread(threadId, callerTenant(res)))) {
      return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}". It is created by its first run.`);
    }
    const dir = await workspaces.existing(threadId, callerTenant(res));
    if (!dir) return sendError(res, 404, "FILE_NOT_FOUND", `Thread ${threadId} has no workspace yet.`);
    let file: Awaited<ReturnType<typeof openInWorkspace>>;
    try {
      file = await openInWorkspace(dir, q.data.path, "file");
    } catch (err) {
      if (!(err instanceof PathRefused)) throw err;
      // A command moving the path under the walk, each of the attempts: the same GET may succeed.
      if (err instanceof PathChanged) return sendError(res, 409, "PATH_CHANGED", err.message);
      return err.missing ? sendError(res, 404, "FILE_NOT_FOUND", err.message) : sendError(res, 400, "INVALID_PATH", err.message);
    } finally {
      await dir.close();
    }
    const size = file.stat.size;
    let body: Buffer;
    try {
      body = Buffer.alloc(Math.min(size, WORKSPACE_FILE_MAX_BYTES));
      const { bytesRead } = await file.handle.read(body, 0, body.length, 0);
      body = body.subarray(0, bytesRead);
    } finally {
      await file.handle.close();
    }
    res.set({
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      "x-threadline-file-size": String(size),
      "x-threadline-modified-at": file.stat.mtime.toISOString(),
    });
    if (size > body.length) res.set("x-threadline-truncated", "true");
    res.send(body);
  });

  return router;
}
