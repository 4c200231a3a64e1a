/**
 * `threadline.copilotkit()` without loading CopilotKit's runtime until it is mounted, and without
 * needing it installed at all by an application that never mounts it: `@copilotkit/runtime` is an
 * optional peer dependency (its tree is most of what an install would otherwise weigh). The
 * handler module is imported when the door is first asked for; the returned handler waits for it.
 * Rejected: a static import (every install pays for the runtime), and a handler that loads on its
 * first request (a missing package would show only when a user first clicks, not at start).
 * The import is made in steps (import-in-steps.ts), one module per turn of the event loop.
 */
import type { RequestHandler } from "express";
import { errorHandler } from "../http/errors.ts";
import { loadInSteps, sibling } from "../import-in-steps.ts";
import type { CopilotkitHandlerDeps } from "./handler.ts";
import { CopilotkitRuntimeMissingError } from "./missing.ts";

export interface LazyCopilotkit {
  handler: RequestHandler;
  /** Resolves once the runtime is loaded; rejects with CopilotkitRuntimeMissingError (or the load's error). */
  ready: Promise<void>;
}

export function lazyCopilotkitHandler(deps: CopilotkitHandlerDeps): LazyCopilotkit {
  // In steps: the runtime's graph in one import held the event loop seconds on a busy CPU (docs/startup.md).
  const loading = loadInSteps(sibling("./handler", import.meta.url))
    .then(() => import("./handler.ts"))
    .then(
    ({ copilotkitHandler }) => copilotkitHandler(deps),
    (err: unknown) => {
      throw isMissingRuntime(err) ? new CopilotkitRuntimeMissingError(err) : err;
    },
  );
  const ready = loading.then(() => undefined);
  ready.catch((err: unknown) => deps.logger.error({ err }, err instanceof Error ? err.message : "CopilotKit's runtime could not be loaded"));
  const answerError = errorHandler(deps.logger);
  const handler: RequestHandler = (req, res, next) => {
    loading.then(
      (h) => h(req, res, next),
      (err: unknown) => answerError(err, req, res, next),
    );
  };
  return { handler, ready };
}

/** Node's "cannot find" for the runtime itself (import) or for what it resolves (require). */
function isMissingRuntime(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  return (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && typeof e.message === "string" && e.message.includes("@copilotkit/runtime");
}

