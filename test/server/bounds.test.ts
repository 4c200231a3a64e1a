/**
 * The bounds table (server/bounds.ts) lists every time bound once: each *_MS setting of the
 * configuration and each *_MS constant exported anywhere in server/, each with a reason and a
 * verdict for a starved CPU. A bound added without a row fails here, by name.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BOUNDS } from "../../server/bounds.ts";
import { ConfigSchema } from "../../server/config.ts";

const SERVER = fileURLToPath(new URL("../../server/", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

const names = BOUNDS.map((b) => b.name);

describe("the bounds table", () => {
  it("lists every *_MS setting of the configuration", () => {
    const settings = Object.keys(ConfigSchema.shape).filter((k) => k.endsWith("_MS"));
    expect(settings.length).toBeGreaterThan(5);
    expect(settings.filter((s) => !names.includes(s))).toEqual([]);
  });

  it("lists every *_MS constant exported from server/", () => {
    const exported = sourceFiles(SERVER).flatMap((f) => [...readFileSync(f, "utf8").matchAll(/^export const ([A-Z][A-Z0-9_]*_MS)\b/gm)].map((m) => m[1]!));
    expect(exported.length).toBeGreaterThan(10);
    expect(exported.filter((c) => !names.includes(c))).toEqual([]);
  });

  it("states each setting's default as the configuration has it", () => {
    const defaults = ConfigSchema.parse({}) as Record<string, unknown>;
    const stated = BOUNDS.filter((b) => b.where === "config.ts" && b.name in ConfigSchema.shape);
    expect(Object.fromEntries(stated.map((b) => [b.name, b.value]))).toEqual(Object.fromEntries(stated.map((b) => [b.name, defaults[b.name]])));
  });

  it("lists each once, with a reason and a verdict for a starved CPU", () => {
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    for (const b of BOUNDS) {
      expect(b.reason.length, b.name).toBeGreaterThan(20);
      if (b.starved !== "holds") expect(b.starved.mustNotGrow.length, b.name).toBeGreaterThan(10);
    }
  });
});
