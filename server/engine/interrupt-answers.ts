/**
 * Whether an answer fits the question it answers, decided at admission (server/engine/resume.ts),
 * before anything is written: a run whose answer does not fit is a 400 INVALID_RESUME naming the
 * interrupt and every reason, and the interrupt stays pending for a corrected answer. Every check
 * is of the JSON Schema the client was shown, as written, by ajv (json-schema-check.ts):
 * - an approval (needsApproval): the responseSchema it was asked with (no keys but `approved`,
 *   `reason`, `editedArgs`), then the edits, if any, against the tool's arguments schema as the
 *   model and the approval card see it (so a key the tool does not take is refused, not dropped),
 *   and the tool's own parse of them (its refinements);
 * - a question (ctx.interrupt()) asked with a responseSchema: that schema. Rejected: leaving the
 *   check to the tool, which runs only after the answer is recorded, so an answer that does not
 *   fit consumed the question: the step failed and the user could not correct it.
 * A cancel carries no answer and is not checked; neither is a question asked without a schema.
 */
import { APPROVAL_RESPONSE_JSON_SCHEMA, ApprovalAnswerSchema, type InterruptRecord } from "../../protocol/interrupts.ts";
import { schemaIssues, type SchemaIssue } from "../../protocol/json-schema.ts";
import type { ToolDefinition } from "../agents/define.ts";
import { toolJsonSchema } from "../agents/tool-json-schema.ts";
import { InvalidResumeError } from "./interrupt-errors.ts";
import { compileJsonSchema, type JsonSchemaCheck } from "./json-schema-check.ts";

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

/**
 * The check of a schema read from the log, or undefined when it does not compile: only a log
 * written before ctx.interrupt() refused such schemas holds one (tool-interrupts.ts), and
 * refusing every answer to it would leave its thread waiting for ever. Its tool checks the answer.
 */
function checkOf(schema: Record<string, unknown>): JsonSchemaCheck | undefined {
  try {
    return compileJsonSchema(schema);
  } catch {
    return undefined;
  }
}

function checkApproval(rec: InterruptRecord, payload: unknown, path: string, tools: ToolSchemas): void {
  const id = rec.request.interruptId;
  const shape = checkOf(rec.request.responseSchema ?? APPROVAL_RESPONSE_JSON_SCHEMA) ?? compileJsonSchema(APPROVAL_RESPONSE_JSON_SCHEMA);
  const answer = ApprovalAnswerSchema.safeParse(payload);
  const shapeIssues = shape(payload, path);
  if (shapeIssues.length > 0 || !answer.success) {
    const issues = shapeIssues.length > 0 ? shapeIssues : schemaIssues(answer.error!.issues, path);
    throw new InvalidResumeError(
      `Interrupt "${id}" asks for an approval: answer with {"approved": true} (optionally with ` +
        `"editedArgs": {...}, the arguments to run with), or {"approved": false, "reason": "..."} (or status "cancelled"), ` +
        `and no other fields. The answer sent does not fit: ${reasonsOf(issues)}.`,
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
  if (!tool) return;
  const issues = editIssues(tool, editedArgs, `${path}.editedArgs`);
  if (issues.length === 0) return;
  throw new InvalidResumeError(
    `The edited arguments of ${tool.name} do not match its arguments schema (${reasonsOf(issues)}); fix the fields listed in \`issues\` ` +
      `(the tool's schema is in GET /api/agents/<agent>, and the model's arguments are in the interrupt's payload).`,
    issues,
    id,
  );
}

/**
 * Why edits do not fit `tool`: its arguments schema as advertised (the given JSON Schema, with its
 * $schema, or the zod schema's), which refuses a key the tool does not take where zod would strip
 * it; then the tool's own parse, for what a JSON Schema cannot say (a zod refinement).
 */
function editIssues(tool: ToolDefinition, edits: unknown, path: string): SchemaIssue[] {
  const advertised = checkOf(tool.jsonSchema ?? toolJsonSchema(tool));
  const issues = advertised?.(edits, path) ?? [];
  if (issues.length > 0) return issues;
  const parsed = tool.inputSchema.safeParse(edits);
  return parsed.success ? [] : schemaIssues(parsed.error.issues, path);
}

function checkResponseSchema(rec: InterruptRecord, payload: unknown, path: string): void {
  const { responseSchema, interruptId } = rec.request;
  if (responseSchema === undefined) return;
  const issues = checkOf(responseSchema)?.(payload, path) ?? [];
  if (issues.length === 0) return;
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
