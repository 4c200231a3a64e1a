/**
 * JSON Schema as the wire carries it (tool parameters, an interrupt's responseSchema), both ways:
 * - a zod schema as draft-7, which function-calling APIs and AG-UI clients read, without the
 *   `$schema` member, which some of them refuse in a tool's parameters;
 * - a JSON Schema tool's arguments schema as the zod validator the tool parses its arguments
 *   with: zod's own conversion (z.fromJSONSchema), so both kinds of tool are parsed by the same
 *   code. An interrupt's answer, which is checked against the schema as written and never
 *   parsed by a tool first, goes through ajv instead (server/engine/json-schema-check.ts).
 */
import { z } from "zod";

export function wireJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: "draft-7" }) as Record<string, unknown>;
  return rest;
}

/** The validator of `schema`; throws when zod cannot convert it (an unresolvable $ref, an unknown type). */
export function jsonSchemaValidator(schema: Record<string, unknown>): z.ZodType {
  return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
}

/** One reason a value does not fit, with the path of the field it is about ("" for the value itself). */
export type SchemaIssue = { path: string; message: string };

/**
 * zod's issues as reasons a person can act on, each under `base`. A value that fits none of the
 * alternatives of an anyOf/oneOf is one reason at the union's path listing what each alternative
 * missed; zod's own message there is only "Invalid input".
 */
export function schemaIssues(issues: readonly z.core.$ZodIssue[], base: string): SchemaIssue[] {
  return issues.map((i) => {
    const path = [base, ...i.path.map(String)].filter((p) => p !== "").join(".");
    if (i.code !== "invalid_union" || i.errors.length === 0) return { path, message: i.message };
    const shapes = i.errors.map((alternative, n) => {
      const reasons = schemaIssues(alternative, "").map((r) => (r.path === "" ? r.message : `${r.path}: ${r.message}`));
      return `(${n + 1}) ${reasons.join(", ")}`;
    });
    return { path, message: `fits none of the ${i.errors.length} accepted shapes: ${shapes.join("; ")}` };
  });
}
