/**
 * .env.example names settings that exist, with values the configuration accepts: a key renamed
 * or removed in server/config.ts, or an example in a format its schema refuses, fails here
 * rather than in a newcomer's first start. What each setting means stays in one place,
 * docs/configuration.md (readme-config.test.ts checks that table against the same schema).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../server/config.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const lines = readFileSync(path.join(ROOT, ".env.example"), "utf8").split("\n");
/** `# KEY=value` and `KEY=value` lines: the examples. */
const examples = lines.flatMap((l) => {
  const m = /^#?\s?([A-Z][A-Z0-9_]*)=(.*)$/.exec(l);
  return m ? [{ key: m[1]!, value: m[2]! }] : [];
});

describe(".env.example", () => {
  it("holds no secret and no setting on: every example is commented out", () => {
    expect(examples.length).toBeGreaterThan(10);
    for (const l of lines) expect(l === "" || l.startsWith("#"), l).toBe(true);
  });

  it("names only settings of the configuration's schema, each once", () => {
    const known = new Set(Object.keys(ConfigSchema.shape));
    for (const { key } of examples) expect(known.has(key), `${key} is not a setting of server/config.ts`).toBe(true);
    expect(new Set(examples.map((e) => e.key)).size).toBe(examples.length);
  });

  it("gives values the schema accepts, all of them at once", () => {
    const env = Object.fromEntries(examples.map((e) => [e.key, e.value]));
    const parsed = ConfigSchema.safeParse(env);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });
});
