/**
 * Whether an answer fits the question it answers, decided at admission (server/engine/resume.ts),
 * before anything is written: a run whose answer does not fit is a 400 INVALID_RESUME naming the
 * interrupt and every reason, and the interrupt stays pending for a corrected answer.
 * - an approval (needsApproval): ApprovalAnswerSchema, the zod source of the responseSchema it
 *   was asked with, and the edits, if any, against the tool's input schema;
 * - a question (ctx.interrupt()) asked with a responseSchema: that JSON Schema, through
 *   protocol/json-schema.ts (the check a JSON Schema tool's arguments get). Rejected: leaving the
 *   check to the tool, which runs only after the answer is recorded, so an answer that does not
 *   fit consumed the question: the step failed and the user could not correct it.
 * A cancel carries no answer and is not checked; neither is a question asked without a schema.
 */
import type { z } from "zod";
import { jsonSchemaValidator, schemaIssues, type SchemaIssue } from "../../protocol/json-schema.ts";
import { ApprovalAnswerSchema, type InterruptRecord } from "../../protocol/interrupts.ts";
import type { ToolDefinition } from "../agents/define.ts";
import { InvalidResumeError } from "./interrupt-errors.ts";

/** The tools of the agent by name: an approval's edits are checked against its tool's schema. */
export type ToolSchemas = (name: string) => ToolDefinition | undefined;

/** At most this many reasons are spelled out in the message; `issues` has them all. */
const REASONS_IN_MESSAGE = 3;

/**
 * The reasons in the sentence itself, not only in `issues`: through /api/copilotkit a refusal is
 * a RUN_ERROR, which carries a code and a message and nothing else.
 */
function reasonsOf(issues: readonly SchemaIssue[]): string {
  const shown = issues.slice(0, REASONS_IN_MESSAGE).map((i) => `${i.path}: ${i.message}`);
  const more = issues.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more (see \`issues\`)` : "");
}

function checkApproval(rec: InterruptRecord, payload: unknown, path: string, tools: ToolSchemas): void {
  const id = rec.request.interruptId;
  const answer = ApprovalAnswerSchema.safeParse(payload);
  if (!answer.success) {
    const issues = schemaIssues(answer.error.issues, path);
    throw new InvalidResumeError(
      `Interrupt "${id}" asks for an approval: answer with {"approved": true} (optionally with ` +
        `"editedArgs": {...}, the arguments to run with), or {"approved": false, "reason": "..."} (or status "cancelled"). ` +
        `The answer sent does not fit: ${reasonsOf(issues)}.`,
      issues,
      id,
    );
  }
  const { approved, editedArgs } = answer.data;
  if (editedArgs === undefined) return;
  if (!approved) {
    throw new InvalidResumeError(`Interrupt "${id}": "editedArgs" go with {"approved": true}; a denial runs nothing.`, [{ path: `${path}.editedArgs`, message: "only with approved: true" }], id);
  }
  const tool = tools(rec.request.toolName);
  const parsed = tool?.inputSchema.safeParse(editedArgs);
  if (!tool || !parsed || parsed.success) return;
  const issues = schemaIssues(parsed.error.issues, `${path}.editedArgs`);
  throw new InvalidResumeError(
    `The edited arguments of ${tool.name} do not match its input schema (${reasonsOf(issues)}); fix the fields listed in \`issues\` ` +
      `(the tool's schema is in the interrupt's metadata payload shape and in GET /api/agents/<agent>).`,
    issues,
    id,
  );
}

/**
 * The validator of a question's responseSchema, or undefined when zod cannot convert it: only a
 * log written before ctx.interrupt() refused such schemas holds one (tool-interrupts.ts), and
 * refusing every answer to it would leave its thread waiting for ever. Its tool checks the answer.
 */
function validatorOf(responseSchema: Record<string, unknown>): z.ZodType | undefined {
  try {
    return jsonSchemaValidator(responseSchema);
  } catch {
    return undefined;
  }
}

function checkResponseSchema(rec: InterruptRecord, payload: unknown, path: string): void {
  const { responseSchema, interruptId } = rec.request;
  if (responseSchema === undefined) return;
  const parsed = validatorOf(responseSchema)?.safeParse(payload);
  if (!parsed || parsed.success) return;
  const issues = schemaIssues(parsed.error.issues, path);
  throw new InvalidResumeError(
    `The answer to interrupt "${interruptId}" does not fit its responseSchema: ${reasonsOf(issues)}. Send a payload that fits ` +
      `the schema (the interrupt's responseSchema, in RUN_FINISHED's outcome and in the thread's pendingInterrupts), ` +
      `or resume it with status "cancelled".`,
    issues,
    interruptId,
  );
}

/** Throws InvalidResumeError unless `payload`, a resolved answer found at `path`, fits what `rec` asked. */
export function checkAnswer(rec: InterruptRecord, payload: unknown, path: string, tools: ToolSchemas): void {
  if (rec.request.kind === "approval") checkApproval(rec, payload, path, tools);
  else checkResponseSchema(rec, payload, path);
}
