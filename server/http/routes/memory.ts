/**
 * Memory across threads (docs/memory.md): PUT|GET|DELETE <mount>/memory/:namespace/:key (the body
 * of a PUT is the JSON value, an object or an array: the JSON parser of the edge takes no bare
 * scalar) and GET <mount>/memory/:namespace?prefix=&q=&limit=&after=. All of it the caller's
 * tenant's: nobody reads or writes another tenant's memory, nor learns whether it has a key.
 */
import { Router } from "express";
import { z } from "zod";
import type { Memory, MemoryEntry } from "../../memory/memory.ts";
import { MEMORY_SEARCH_MAX } from "../../memory/memory.ts";
import { callerTenant } from "../auth.ts";
import { sendError, zodIssues } from "../errors.ts";

export const SearchQuerySchema = z.object({
  prefix: z.string().max(256).optional(),
  q: z.string().max(500).optional(),
  after: z.string().max(256).optional(),
  limit: z.coerce.number().int().min(1).max(MEMORY_SEARCH_MAX).default(20),
});

export function memoryRoutes(memory: Memory): Router {
  const router = Router();
  router.put("/memory/:namespace/:key", async (req, res) => {
    const { namespace, key } = req.params;
    const mine = memory.forTenant(callerTenant(res));
    const existed = (await mine.get(namespace, key)) !== null;
    const entry = await mine.put(namespace, key, req.body);
    res.status(existed ? 200 : 201).json(entryJson(entry));
  });
  router.get("/memory/:namespace/:key", async (req, res) => {
    const { namespace, key } = req.params;
    const entry = await memory.forTenant(callerTenant(res)).get(namespace, key);
    if (!entry) return sendError(res, 404, "MEMORY_NOT_FOUND", `Namespace "${namespace}" has no key "${key}".`);
    res.json(entryJson(entry));
  });
  router.delete("/memory/:namespace/:key", async (req, res) => {
    const { namespace, key } = req.params;
    if (!(await memory.forTenant(callerTenant(res)).delete(namespace, key))) {
      return sendError(res, 404, "MEMORY_NOT_FOUND", `Namespace "${namespace}" has no key "${key}".`);
    }
    res.status(204).end();
  });
  router.get("/memory/:namespace", async (req, res) => {
    const q = SearchQuerySchema.safeParse(req.query);
    if (!q.success) return sendError(res, 400, "INVALID_QUERY", "Fix the query parameters listed in `issues`.", { issues: zodIssues(q.error.issues) });
    const { prefix, q: text, after, limit } = q.data;
    if (text !== undefined && after !== undefined) {
      return sendError(res, 400, "INVALID_QUERY", "`after` pages the key order; a text search (`q`) is ordered by rank: send one of them.");
    }
    const entries = await memory.forTenant(callerTenant(res)).search({ namespace: req.params.namespace, prefix, q: text, after, limit });
    // A full page by key order: the next one starts after its last key.
    const next = text === undefined && entries.length === limit ? entries.at(-1)!.key : null;
    res.json({ entries: entries.map(entryJson), next });
  });
  return router;
}

function entryJson(e: MemoryEntry) {
  return { namespace: e.namespace, key: e.key, value: e.value, createdAt: new Date(e.createdAt).toISOString(), updatedAt: new Date(e.updatedAt).toISOString() };
}
