/**
 * A value checked against a JSON Schema as written, by ajv (the field's standard validator, with
 * ajv-formats for `format`): what an interrupt's answer is checked against at admission (its
 * responseSchema, and an approval's edits against the tool's advertised arguments schema), and
 * what ctx.interrupt() checks its responseSchema compiles with before it asks. The draft is the
 * one the schema names in `$schema` (2019-09, 2020-12), draft-07 otherwise: what this server's
 * own schemas are (protocol/json-schema.ts wireJsonSchema).
 *
 * Strict about keywords: a schema with a keyword ajv does not know, or a format it cannot check,
 * does not compile (the caller says it cannot be checked), rather than letting through values
 * the schema's author meant to refuse. Rejected: zod's conversion (z.fromJSONSchema), which
 * this check replaced for answers: it cannot express `not`, `if`/`then`, `dependentRequired`
 * or `unevaluatedProperties` (such schemas could not be asked at all), and an approval's answer
 * was parsed by a zod object that let through keys its responseSchema forbids.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { SchemaIssue } from "../../protocol/json-schema.ts";

// ajv-formats is CommonJS whose default export is module.exports itself (typed as its namespace).
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** A compiled check: the reasons `value` does not fit, under `base`; none when it fits. */
export type JsonSchemaCheck = (value: unknown, base: string) => SchemaIssue[];

/**
 * Options shared by every draft: every reason, not the first; the schema's own lint (types
 * spelled out, required fields declared, tuple lengths) off, since it refuses schemas that mean
 * something well-defined; unknown keywords and formats still refuse to compile.
 */
const OPTIONS = { allErrors: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, logger: false } as const;

type Draft = "draft-07" | "2019-09" | "2020-12";

function draftOf(schema: Record<string, unknown>): Draft {
  const named = typeof schema.$schema === "string" ? schema.$schema : "";
  return named.includes("2020-12") ? "2020-12" : named.includes("2019-09") ? "2019-09" : "draft-07";
}

/** One ajv per draft, built on first use (each adds the formats once). */
const ajvs = new Map<Draft, Ajv>();

function ajvFor(schema: Record<string, unknown>): Ajv {
  const draft = draftOf(schema);
  let ajv = ajvs.get(draft);
  if (!ajv) {
    ajv = draft === "2020-12" ? new Ajv2020(OPTIONS) : draft === "2019-09" ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
    addFormats(ajv);
    ajvs.set(draft, ajv);
  }
  return ajv;
}

/**
 * Compiled checks by the schema's JSON text, at most this many: a thread's interrupts ask with a
 * handful of schemas, and compiling one costs about a millisecond. The oldest goes first.
 */
const CACHED_SCHEMAS = 256;
const compiled = new Map<string, ValidateFunction>();

/**
 * The check of `schema`; throws (with ajv's reason) when it does not compile. ajv keeps every
 * schema it compiled in its own cache, keyed by the object: each is removed from it at once, so
 * schemas read from the log (a fresh object every time) do not pile up there.
 */
export function compileJsonSchema(schema: Record<string, unknown>): JsonSchemaCheck {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (!validate) {
    const ajv = ajvFor(schema);
    validate = ajv.compile(schema);
    ajv.removeSchema(schema);
    if (compiled.size >= CACHED_SCHEMAS) compiled.delete(compiled.keys().next().value!);
    compiled.set(text, validate);
  }
  const check = validate;
  return (value, base) => (check(value) ? [] : issuesOf(check.errors ?? [], base, ""));
}

const isUnion = (e: ErrorObject) => e.keyword === "anyOf" || e.keyword === "oneOf";

/**
 * ajv's errors as reasons a person can act on, each with the dotted path of its field under
 * `base` (`within`: the instance path they are relative to). A value that fits none of the
 * alternatives of an anyOf/oneOf is one reason at the union's path listing what each alternative
 * missed (ajv lists every alternative's errors, then "must match a schema in anyOf").
 */
function issuesOf(all: readonly ErrorObject[], base: string, within: string): SchemaIssue[] {
  // "must match \"then\" schema" only wraps the then/else branch's own reasons, listed beside it.
  const errors = all.some((e) => e.keyword !== "if") ? all.filter((e) => e.keyword !== "if") : all;
  // The outermost unions own every error under their alternatives, nested unions included.
  const unions = errors.filter(isUnion).sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  const owned = new Map<ErrorObject, ErrorObject[]>();
  const taken = new Set<ErrorObject>();
  for (const u of unions) {
    if (taken.has(u)) continue;
    const under = errors.filter((e) => e !== u && e.schemaPath.startsWith(`${u.schemaPath}/`));
    for (const e of under) taken.add(e);
    owned.set(u, under);
  }
  return errors.filter((e) => !taken.has(e)).flatMap((e) => {
    const path = pathOf(base, e.instancePath.slice(within.length));
    const under = owned.get(e);
    return under ? unionIssues(e, under, base, within, path) : [issueOf(e, path)];
  });
}

/**
 * A union the value fits none of. When exactly one alternative failed only inside fields (the
 * value has its shape; a field's value is wrong), that alternative's reasons, at their fields:
 * "chosen_label: must NOT have more than 200 characters", not three shapes to read through.
 * Otherwise one reason at the union's path, saying what each alternative missed.
 */
function unionIssues(u: ErrorObject, under: readonly ErrorObject[], base: string, within: string, path: string): SchemaIssue[] {
  const passing = (u.params as { passingSchemas?: number[] | null }).passingSchemas;
  if (passing) return [{ path, message: `fits more than one of the accepted shapes (${passing.map((i) => i + 1).join(" and ")}); it must fit exactly one` }];
  const byAlternative = new Map<string, ErrorObject[]>();
  for (const e of under) {
    const alternative = e.schemaPath.slice(u.schemaPath.length + 1).split("/")[0]!;
    byAlternative.set(alternative, [...(byAlternative.get(alternative) ?? []), e]);
  }
  const shaped = [...byAlternative.values()].filter((errs) => errs.every((e) => e.instancePath.length > u.instancePath.length));
  if (shaped.length === 1) return issuesOf(shaped[0]!, base, within);
  const shapes = [...byAlternative].map(([alternative, errs]) => {
    const reasons = issuesOf(errs, "", u.instancePath).map((r) => (r.path === "" ? r.message : `${r.path}: ${r.message}`));
    return `(${Number(alternative) + 1}) ${reasons.join(", ")}`;
  });
  return [{ path, message: `fits none of the ${byAlternative.size} accepted shapes: ${shapes.join("; ")}` }];
}

/** `base` and an instance path (RFC 6901, "/a/0/b") as one dotted path. */
function pathOf(base: string, pointer: string): string {
  const steps = pointer === "" ? [] : pointer.slice(1).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  return [base, ...steps].filter((p) => p !== "").join(".");
}

/** One of ajv's errors at `path`; a key the schema does not allow, or misses, is named in the path. */
function issueOf(e: ErrorObject, path: string): SchemaIssue {
  if (e.keyword === "additionalProperties" || e.keyword === "unevaluatedProperties") {
    const params = e.params as { additionalProperty?: string; unevaluatedProperty?: string };
    const key = String(params.additionalProperty ?? params.unevaluatedProperty);
    return { path: pathOf(path, `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`), message: "is not a field this schema takes" };
  }
  if (e.keyword === "required" || e.keyword === "dependentRequired") {
    const key = String((e.params as { missingProperty: string }).missingProperty);
    return { path: pathOf(path, `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`), message: "is required" };
  }
  if (e.keyword === "enum") {
    const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
    return { path, message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}` };
  }
  if (e.keyword === "const") return { path, message: `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}` };
  return { path, message: e.message ?? `fails the schema's "${e.keyword}"` };
}
