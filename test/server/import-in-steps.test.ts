/**
 * loadInSteps (server/import-in-steps.ts) on a small graph of its own: ES modules with a cycle
 * whose second member reads the first's export at its top level (evaluated from the wrong end,
 * that read would throw), and a CommonJS module that require()s another. After it, each module has
 * been evaluated once, in the order the entry's own import evaluates them, and the entry's import
 * finds them all: nothing is evaluated twice or left out. In a Node process of its own, as the
 * server runs it: vitest's module runner loads a CommonJS file outside node_modules apart from
 * require()'s cache, which Node's import() shares.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const STEPS = pathToFileURL(fileURLToPath(new URL("../../server/import-in-steps.ts", import.meta.url))).href;

const dir = mkdtempSync(path.join(tmpdir(), "import-in-steps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const seen = (name: string) => `(globalThis.__steps ??= []).push(${JSON.stringify(name)});`;
const files: Record<string, string> = {
  "entry.mjs": `import { b } from "./b.mjs";\nimport c from "./c.cjs";\n${seen("entry")}\nexport const all = [b, c];`,
  "b.mjs": `import { d } from "./d.mjs";\n${seen("b")}\nexport const b = "b" + d();`,
  // d reads b only when called, b reads d's function at its top level: b must evaluate after d.
  "d.mjs": `import { b } from "./b.mjs";\n${seen("d")}\nexport function d() { return "d"; }\nexport const later = () => b;`,
  "c.cjs": `const e = require("./e.cjs");\n${seen("c")}\nmodule.exports = "c" + e;`,
  "e.cjs": `${seen("e")}\nmodule.exports = "e";`,
};
for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);

describe("loadInSteps", () => {
  it("evaluates each module of the graph once, leaves first and cycles from their first member, before the entry", () => {
    const entry = pathToFileURL(path.join(dir, "entry.mjs")).href;
    const script = `
      const { loadInSteps } = await import(${JSON.stringify(STEPS)});
      await loadInSteps(new URL(${JSON.stringify(entry)}));
      const before = [...globalThis.__steps];
      const mod = await import(${JSON.stringify(entry)});
      console.log(JSON.stringify({ before, after: globalThis.__steps, all: mod.all }));`;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ before: ["d", "b", "e", "c"], after: ["d", "b", "e", "c", "entry"], all: ["bd", "ce"] });
  });
});
