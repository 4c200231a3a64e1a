/**
 * The JSON Schema of a tool's parameters as a model's function-calling API is sent it: the one
 * given for a JSON Schema tool, or a zod tool's converted once per tool.
 */
import { wireJsonSchema } from "../../protocol/json-schema.ts";
import type { ToolDefinition } from "./define.ts";

/**
 * A zod tool's JSON Schema, converted once per tool (z.toJSONSchema walks the whole schema: about
 * 170 µs a request for the default agent's three tools, 0.9% of the server's CPU samples at 200
 * concurrent runs, docs/performance.md) and kept as text, so that every request still gets a
 * fresh object a provider adapter may change. Rejected: handing out one shared object, which an
 * adapter that adds, say, `additionalProperties` would change for every later request.
 */
const wireSchemaTexts = new WeakMap<ToolDefinition, string>();

/** The JSON Schema of a tool's parameters, as the LLM's function-calling API wants it. */
export function toolJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  if (tool.jsonSchema) {
    const { $schema: _, ...given } = tool.jsonSchema;
    return given;
  }
  let text = wireSchemaTexts.get(tool);
  if (text === undefined) {
    text = JSON.stringify(wireJsonSchema(tool.inputSchema));
    wireSchemaTexts.set(tool, text);
  }
  return JSON.parse(text) as Record<string, unknown>;
}
