/**
 * A value against a JSON Schema as written (server/engine/json-schema-check.ts, ajv): every
 * keyword enforced or the schema refused, each reason at the field it is about, and a union's
 * reasons either at the one alternative the value has the shape of or listed per alternative.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileJsonSchema } from "../../server/engine/json-schema-check.ts";

const check = (schema: Record<string, unknown>, value: unknown) => compileJsonSchema(schema)(value, "payload");

describe("compileJsonSchema", () => {
  it("a key additionalProperties: false forbids is named, as is a missing required one", () => {
    const schema = { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"], additionalProperties: false };
    expect(check(schema, { approved: true })).toEqual([]);
    expect(check(schema, { approved: true, approvedBy: "x" })).toEqual([{ path: "payload.approvedBy", message: "is not a field this schema takes" }]);
    expect(check(schema, {})).toEqual([{ path: "payload.approved", message: "is required" }]);
  });

  it("keywords zod's conversion could not express are enforced: not, if/then, dependentRequired (2020-12), unevaluatedProperties", () => {
    expect(check({ not: { type: "string" } }, "x")).toHaveLength(1);
    expect(check({ not: { type: "string" } }, 1)).toEqual([]);
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, data never awaited
    const conditional = { type: "object", if: { properties: { kind: { const: "room" } }, required: ["kind"] }, then: { required: ["size"] } };
    expect(check(conditional, { kind: "room" })).toEqual([{ path: "payload.size", message: "is required" }]);
    expect(check(conditional, { kind: "desk" })).toEqual([]);
    const draft2020 = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", dependentRequired: { card: ["expiry"] }, unevaluatedProperties: false, properties: { card: {}, expiry: {} } };
    expect(check(draft2020, { card: 1 })).toEqual([{ path: "payload.expiry", message: "is required" }]);
    expect(check(draft2020, { card: 1, expiry: 2, cvv: 3 })).toEqual([{ path: "payload.cvv", message: "is not a field this schema takes" }]);
  });

  it("formats are checked (ajv-formats); a keyword or format ajv does not know refuses the schema", () => {
    expect(check({ type: "string", format: "date-time" }, "2026-03-02T09:30:00Z")).toEqual([]);
    expect(check({ type: "string", format: "date-time" }, "Monday")).toEqual([{ path: "payload", message: 'must match format "date-time"' }]);
    expect(() => compileJsonSchema({ type: "object", colour: "blue" })).toThrow(/unknown keyword/);
    expect(() => compileJsonSchema({ type: "string", format: "cuid" })).toThrow(/unknown format/);
  });

  it("a union: the reasons of the one alternative the value has the shape of, else what each missed", () => {
    const union = {
      anyOf: [
        { type: "object", properties: { slot: { enum: ["Mon", "Tue"] } }, required: ["slot"], additionalProperties: false },
        { type: "object", properties: { cancelled: { const: true } }, required: ["cancelled"], additionalProperties: false },
      ],
    };
    expect(check(union, { slot: "Sun" })).toEqual([{ path: "payload.slot", message: 'must be one of "Mon", "Tue"' }]);
    expect(check(union, { when: "Sun" })).toEqual([
      { path: "payload", message: "fits none of the 2 accepted shapes: (1) slot: is required, when: is not a field this schema takes; (2) cancelled: is required, when: is not a field this schema takes" },
    ]);
    expect(check({ oneOf: [{ type: "number" }, { type: "integer" }] }, 1)).toEqual([{ path: "payload", message: "fits more than one of the accepted shapes (1 and 2); it must fit exactly one" }]);
  });

  it("property: bounds hold at the edge, and a refusal names exactly the fields past them", () => {
    const schema = { type: "object", properties: { n: { type: "integer", minimum: 1, maximum: 10 }, s: { type: "string", maxLength: 5 } }, required: ["n"], additionalProperties: false };
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 15 }), fc.string({ maxLength: 8 }), (n, s) => {
        const bad = [...(n < 1 || n > 10 ? ["payload.n"] : []), ...([...s].length > 5 ? ["payload.s"] : [])];
        expect(check(schema, { n, s }).map((i) => i.path)).toEqual(bad);
      }),
    );
  });
});
