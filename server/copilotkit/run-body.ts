/**
 * The run and connect bodies of the CopilotKit door, checked before CopilotKit's runtime sees
 * them: a body that is no AG-UI RunAgentInput is refused here with the main run route's answer
 * (400 INVALID_RUN_INPUT and the issues' paths). The runtime's own check printed the whole
 * ZodError to stderr with console.error (130 lines for one malformed POST, outside the server's
 * JSON logs) before answering 400; it has no logger to route instead. Rejected: patching console
 * around the runtime's handler, which would catch every other caller's lines too.
 */
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import type { RequestHandler } from "express";
import { InvalidRequestError } from "../errors.ts";
import { zodIssues } from "../http/errors.ts";

export function requireRunAgentInput(): RequestHandler {
  return (req, _res, next) => {
    const parsed = RunAgentInputSchema.safeParse(req.body);
    if (parsed.success) return next();
    next(new InvalidRequestError("INVALID_RUN_INPUT", "The body is not a valid AG-UI RunAgentInput; fix the fields listed in `issues`.", zodIssues(parsed.error.issues)));
  };
}
