/**
 * The manual documents every setting (docs/configuration.md) and every export
 * (docs/library-api.md), so that a variable or an export added to the code without a line in
 * the manual fails here rather than going unseen (the README held both tables until issue 35).
 * The sources of truth are the code: the zod schema of the configuration (server/config.ts), the
 * variables the dev server reads (client/dev.ts, client/vite.config.ts), and the package's entry
 * (server/index.ts, what package.json's "." export compiles from).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../server/config.ts";
import * as entry from "../../server/index.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CONFIGURATION = "docs/configuration.md";
const LIBRARY_API = "docs/library-api.md";
const page = (file: string) => `\n${readFileSync(path.join(ROOT, file), "utf8")}`;

/**
 * The rows of the table under the heading `<heading>` (`#` to `###`) of a page, up to the next
 * such heading: first cell → the row's cells.
 */
function tableUnder(file: string, heading: string): Map<string, string[]> {
  const text = page(file);
  const at = new RegExp(`\n#{1,3} ${heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n`).exec(text);
  if (!at) throw new Error(`${file} has no "${heading}" heading`);
  const start = at.index;
  const next = text.slice(start + 1).search(/\n#{1,3} /);
  const section = next === -1 ? text.slice(start) : text.slice(start, start + 1 + next);
  const rows = new Map<string, string[]>();
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    for (const name of cells[0]!.matchAll(/`([^`]+)`/g)) rows.set(name[1]!, cells);
  }
  return rows;
}

/** The environment variables a source file reads as `process.env.NAME`. */
function envReadBy(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return [...new Set([...text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!))];
}

describe(`${CONFIGURATION}: Configuration`, () => {
  const table = tableUnder(CONFIGURATION, "Configuration");
  const defaults = ConfigSchema.parse({}) as Record<string, unknown>;
  const keys = Object.keys(ConfigSchema.shape);

  it("reads the schema's variables (a guard on this test itself)", () => {
    expect(keys.length).toBeGreaterThan(40);
    expect(keys).toContain("DATABASE_URL");
  });

  it("has a row for every variable of the configuration schema", () => {
    expect(keys.filter((k) => !table.has(k))).toEqual([]);
  });

  it("has a row for every variable the dev server and the CopilotKit runtime read", () => {
    const read = [...new Set([...envReadBy("client/dev.ts"), ...envReadBy("client/vite.config.ts"), ...envReadBy("server/copilotkit/telemetry.ts")])];
    expect(read).toContain("VITE_PORT");
    expect(read.filter((k) => !table.has(k))).toEqual([]);
  });

  it("states each variable's default as the schema has it", () => {
    const wrong: string[] = [];
    for (const key of keys) {
      const value = defaults[key];
      const cell = table.get(key)?.[1] ?? "";
      if (typeof value === "number" || (typeof value === "string" && value !== "")) {
        if (!cell.includes(`\`${String(value)}\``)) wrong.push(`${key}: the manual says ${cell}, the schema ${String(value)}`);
      } else if (typeof value === "boolean") {
        if (!cell.includes(`\`${String(value)}\``)) wrong.push(`${key}: the manual says ${cell}, the schema ${String(value)}`);
      } else if (!cell.startsWith("(unset")) {
        wrong.push(`${key}: unset by default, the manual says ${cell}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("names no variable the code does not read", () => {
    const known = new Set([...keys, ...envReadBy("client/dev.ts"), ...envReadBy("client/vite.config.ts"), ...envReadBy("server/copilotkit/telemetry.ts")]);
    expect([...table.keys()].filter((k) => !known.has(k))).toEqual([]);
  });
});

describe(`${LIBRARY_API}: the package's exports`, () => {
  it("lists every value the package's entry exports, each in the exports table", () => {
    const table = tableUnder(LIBRARY_API, "The package's exports");
    const exported = Object.keys(entry);
    expect(exported).toContain("createThreadline");
    const named = new Set([...table.keys()].map((k) => k.replace(/\(.*$/, "")));
    expect(exported.filter((k) => !named.has(k))).toEqual([]);
  });

  it("names every type the package's entry exports", () => {
    const source = readFileSync(path.join(ROOT, "server/index.ts"), "utf8");
    const types = [...source.matchAll(/\btype (\w+)/g)].map((m) => m[1]!);
    expect(types).toContain("ThreadlineOptions");
    const text = page(LIBRARY_API);
    expect(types.filter((t) => !text.includes(`\`${t}\``))).toEqual([]);
  });
});
