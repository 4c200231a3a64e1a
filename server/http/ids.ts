/**
 * The one rule for ids a client names (threadId, runId, agentId), in a path or in a body: not
 * blank, at most ID_MAX characters, no control characters, well-formed Unicode. Ids end up in
 * text columns, log lines and SSE frames; a NUL or a 10 KB id would fail in Postgres (a 500
 * after the fact) instead of here.
 */
import type { RequestHandler } from "express";
import { InvalidRequestError } from "../errors.ts";
import { unsafeTextReason } from "./limits.ts";

export const ID_MAX = 200;

const CONTROL = /[\u0000-\u001f\u007f]/;

/** What is wrong with an id, or null when it is acceptable. */
export function idProblem(id: string): string | null {
  if (id.trim() === "") return "must not be empty";
  if (id.length > ID_MAX) return `must be at most ${ID_MAX} characters`;
  if (CONTROL.test(id)) return "must not contain control characters (U+0000-U+001F, U+007F)";
  return unsafeTextReason(id) === null ? null : "must be well-formed Unicode (no lone UTF-16 surrogates)";
}

/**
 * Checks the route parameters in `names` that the path of this mount carries. Mounted with
 * `app.use("/api/threads/:threadId", ...)`, so it runs before every route under it, whichever
 * router defines them.
 */
export function validatePathIds(...names: string[]): RequestHandler {
  return (req, _res, next) => {
    const issues = [];
    for (const name of names) {
      const value = req.params[name];
      if (typeof value !== "string") continue;
      const problem = idProblem(value);
      if (problem) issues.push({ path: `path ${name}`, message: problem });
    }
    if (issues.length === 0) return next();
    next(new InvalidRequestError("INVALID_ID", `Fix the ids in the URL listed in \`issues\`: ids are 1-${ID_MAX} printable characters.`, issues));
  };
}

/**
 * Checks the ids in `names` of a parsed JSON body, when present: each must be a string the id
 * rule accepts. For doors whose body another library reads after us (CopilotKit's runtime): its
 * own parse takes any string, and a NUL reached Postgres as a 500. Absent ids are left to the
 * body's own schema, which says what is missing.
 */
export function validateBodyIds(...names: string[]): RequestHandler {
  return (req, _res, next) => {
    const body: unknown = req.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return next();
    const issues = [];
    for (const name of names) {
      if (!Object.hasOwn(body, name)) continue;
      const value = (body as Record<string, unknown>)[name];
      const problem = typeof value === "string" ? idProblem(value) : "must be a string";
      if (problem) issues.push({ path: name, message: problem });
    }
    if (issues.length === 0) return next();
    next(new InvalidRequestError("INVALID_ID", `Fix the ids in the body listed in \`issues\`: ids are 1-${ID_MAX} printable characters.`, issues));
  };
}
