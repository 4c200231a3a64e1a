/**
 * Arguments for a tool call the demo model makes, filled from the schema the request offers for
 * that tool: the demo knows what it means to pass (a place, a title), not what the application
 * named its fields. So `get_weather` with `{ city }`, `{ location }` or `{ place, units }` gets a
 * call its own validation accepts. Rejected: the demo's own schemas hard-coded, which sent
 * `{ location }` to any `get_weather` and had the assistant read the validation error back.
 *
 * The rule: a property the demo has a value for by name keeps it (so does one the schema does not
 * name, unless it forbids other properties); every other required property gets a value of its
 * type (a string gets the demo's subject, such as the place asked about); optional properties are
 * left out. No tool of that name on offer: the demo's own arguments.
 */
import type { DemoChatRequest } from "./fixture.ts";

type Schema = Record<string, unknown>;

/** The JSON Schema of the parameters of the tool `name` in the request, if it offers one. */
export function offeredParameters(req: DemoChatRequest, name: string): Schema | undefined {
  const tool = (req.tools ?? []).find((t) => t.function.name === name);
  const params = tool?.function.parameters;
  return params && typeof params === "object" ? (params as Schema) : undefined;
}

/**
 * `known` by property name, then `subject` for the first string the schema requires and nothing
 * named; the demo's own `known` when the request offers no such tool.
 */
export function argsFor(req: DemoChatRequest, name: string, known: Record<string, unknown>, subject: string): Record<string, unknown> {
  const schema = offeredParameters(req, name);
  if (!schema) return known;
  const filled = valueFor(schema, known, { subject, used: false });
  return isObject(filled) ? filled : known;
}

interface Fill {
  subject: string;
  /** The subject went into a string already: later strings get a neutral value. */
  used: boolean;
}

function valueFor(schema: unknown, known: Record<string, unknown>, fill: Fill): unknown {
  if (!isObject(schema)) return fill.subject;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ("default" in schema) return schema.default;
  const options = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(options) && options.length > 0) return valueFor(options.find((o) => !isObject(o) || o.type !== "null") ?? options[0], known, fill);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object":
    case undefined: {
      if (type === undefined && !isObject(schema.properties)) return fill.subject;
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
      const out: Record<string, unknown> = {};
      // A known value the schema does not name stays where the schema admits other properties.
      if (schema.additionalProperties !== false) for (const [key, value] of Object.entries(known)) if (!(key in properties)) out[key] = value;
      for (const [key, sub] of Object.entries(properties)) {
        if (key in known && fits(sub, known[key])) out[key] = known[key];
        else if (required.has(key)) out[key] = valueFor(sub, {}, fill);
      }
      return out;
    }
    case "string": {
      const value = fill.used ? "-" : fill.subject;
      fill.used = true;
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      return value.padEnd(min, "-");
    }
    case "integer":
    case "number": {
      const low = typeof schema.minimum === "number" ? Math.ceil(schema.minimum) : typeof schema.exclusiveMinimum === "number" ? Math.floor(schema.exclusiveMinimum) + 1 : 1;
      return typeof schema.maximum === "number" && schema.maximum < low ? schema.maximum : low;
    }
    case "boolean":
      return false;
    case "array": {
      const min = typeof schema.minItems === "number" ? schema.minItems : 0;
      return Array.from({ length: min }, () => valueFor(schema.items, {}, fill));
    }
    case "null":
      return null;
    default:
      return fill.subject;
  }
}

/** Whether a known value is of the schema's declared type (enough to keep it; validation decides the rest). */
function fits(schema: unknown, value: unknown): boolean {
  if (!isObject(schema) || schema.type === undefined) return true;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.some((t) => {
    if (t === "integer") return Number.isInteger(value);
    if (t === "array") return Array.isArray(value);
    if (t === "object") return isObject(value);
    if (t === "null") return value === null;
    return typeof value === t;
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
