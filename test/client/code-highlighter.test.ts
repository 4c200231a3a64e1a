/**
 * The app's code highlighter (client/src/markdown/shiki-common-languages.ts), called as streamdown
 * calls it: one highlighter per language, streamdown's two themes, its JavaScript regex engine.
 */
import path from "node:path";
import { bundledLanguagesInfo } from "shiki/langs";
import { createJavaScriptRegexEngine } from "shiki/engine/javascript";
import { describe, expect, it } from "vitest";
import { markdownShims } from "../../client/markdown-shims.ts";
import { bundledLanguages, createHighlighter } from "../../client/src/markdown/shiki-common-languages.ts";

const THEMES = ["github-light", "github-dark"];
/** Bound on loading one grammar and compiling its rules (C++'s takes seconds on a loaded machine). */
const HIGHLIGHT_TIMEOUT_MS = 60_000;
const engine = createJavaScriptRegexEngine({ forgiving: true });

/** What streamdown does with a fence's language: highlight it if listed, else as plain text. */
async function tokens(code: string, fence: string) {
  const lang = Object.hasOwn(bundledLanguages, fence) ? fence : "text";
  const highlighter = await createHighlighter({ themes: THEMES, langs: [lang], engine });
  try {
    // No time limit on a line: shiki's (500 ms of wall clock by default) leaves the rest of a line
    // plain once it passes, and the first line of a grammar pays for compiling its rules (the
    // JavaScript engine converts each on first use). On a loaded machine SQL's, its keyword lists,
    // passed it: one colour, and the test failed there while it passed alone. What is checked
    // is the grammar, not the machine's speed; a browser that hits the limit shows plain text.
    return highlighter.codeToTokens(code, { lang, themes: { light: THEMES[0]!, dark: THEMES[1]! }, tokenizeTimeLimit: 0 }).tokens.flat();
  } finally {
    highlighter.dispose();
  }
}

const SAMPLES: [fence: string, code: string][] = [
  ["ts", "const n: number = 1;\nexport function f() { return n; }"],
  ["tsx", "export const A = () => <div className=\"a\">{1}</div>;"],
  ["python", "def f(x):\n    return x + 1"],
  ["sh", "npm install threadline && echo \"ok\""],
  ["json", '{ "a": [1, true, null] }'],
  ["sql", "SELECT id FROM events WHERE seq > $1::bigint"],
  ["rust", "fn main() { let x: u32 = 1; }"],
  ["c++", "#include <vector>\nint main() { return 0; }"],
  ["dockerfile", "FROM node:20\nRUN npm ci"],
  ["diff", "- old\n+ new"],
];

describe("the app's code highlighter", () => {
  it.each(SAMPLES)("highlights a %s block in more than one colour", async (fence, code) => {
    const colours = new Set((await tokens(code, fence)).map((t) => t.htmlStyle?.color ?? t.color));
    expect(colours.size).toBeGreaterThan(1);
  }, HIGHLIGHT_TIMEOUT_MS);

  it("shows a language outside the list as plain text, in one colour", async () => {
    expect(Object.hasOwn(bundledLanguages, "cobol")).toBe(false);
    const colours = new Set((await tokens("IDENTIFICATION DIVISION.", "cobol")).map((t) => t.htmlStyle?.color ?? t.color));
    expect(colours.size).toBe(1);
  }, HIGHLIGHT_TIMEOUT_MS);

  it("knows each listed language by every alias shiki gives it", () => {
    const listed = bundledLanguagesInfo.filter((l) => Object.hasOwn(bundledLanguages, l.id));
    expect(listed.length).toBeGreaterThanOrEqual(20);
    for (const l of listed) for (const alias of l.aliases ?? []) expect(Object.keys(bundledLanguages), l.id).toContain(alias);
  });

  it("refuses a theme it does not carry, with shiki's own sentence", async () => {
    await expect(createHighlighter({ themes: ["dracula"], langs: ["ts"], engine })).rejects.toThrow(/dracula/);
  }, HIGHLIGHT_TIMEOUT_MS);

  it("stands in for shiki only inside streamdown", () => {
    const plugin = markdownShims("/app/client");
    const resolve = plugin.resolveId as (source: string, importer?: string) => string | null;
    const streamdown = path.join("/x", "node_modules", "streamdown", "dist", "code-block.js");
    expect(resolve("shiki", streamdown)).toBe(path.join("/app/client", "src/markdown/shiki-common-languages.ts"));
    expect(resolve("shiki", "/app/client/src/markdown/shiki-common-languages.ts")).toBeNull();
    expect(resolve("shiki/core", streamdown)).toBeNull();
  });
});
