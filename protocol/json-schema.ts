/**
 * A zod schema as the JSON Schema the wire carries (tool parameters, an interrupt's
 * responseSchema): draft-7, which function-calling APIs and AG-UI clients read, without the
 * `$schema` member, which some of them refuse in a tool's parameters.
 */
import { z } from "zod";

export function wireJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: "draft-7" }) as Record<string, unknown>;
  return rest;
}
