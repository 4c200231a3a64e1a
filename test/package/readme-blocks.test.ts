/**
 * Every ts/js block of the README says how it is checked (readme-blocks.ts), so that none can
 * drift from the package unseen: package.test.ts runs or type-checks each one as printed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CODE_LANGS, curlRequest, readmeBlocks, shellCommands, theBlock } from "./readme-blocks.ts";

const README = readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8");
const { blocks, problems } = readmeBlocks(README);

describe("README code blocks", () => {
  it("has no malformed, unknown or dangling check marker", () => {
    expect(problems).toEqual([]);
  });

  it("marks every TypeScript and JavaScript block with how it is checked", () => {
    const unmarked = blocks.filter((b) => CODE_LANGS.has(b.lang) && b.check === undefined).map((b) => `line ${b.line} (${b.lang})`);
    expect(unmarked).toEqual([]);
  });

  it("checks every TypeScript and JavaScript block: none is skipped", () => {
    const skipped = blocks.filter((b) => CODE_LANGS.has(b.lang) && b.check?.kind === "skip").map((b) => `line ${b.line}`);
    expect(skipped).toEqual([]);
  });

  it("has one install, app, ask and CopilotKit pair, in the order a reader follows them", () => {
    const lines = (["install", "app", "ask", "install-typescript", "install-copilotkit", "copilotkit-app"] as const).map((k) => theBlock(blocks, k).line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it("asks the app a question through the app's own route", () => {
    const { path: route, body } = curlRequest(theBlock(blocks, "ask").code);
    expect(route).toMatch(/^\/ai\/agents\/assistant\/run$/);
    expect(body).toMatchObject({ messages: [{ role: "user", content: expect.any(String) }] });
  });

  it("installs from the tarball npm pack writes", () => {
    const [install] = shellCommands(theBlock(blocks, "install").code);
    expect(install).toMatch(/^npm install \.\/threadline-\d+\.\d+\.\d+\.tgz /);
  });

  it("parses markers, indented fences and continued shell lines", () => {
    const parsed = readmeBlocks(
      ["<!-- check: typecheck with a@1 b -->", "", "   ```ts", "   const x = 1;", "   ```", "<!-- check: bogus -->", "```sh", "a \\", "  b # c", "```"].join("\n"),
    );
    expect(parsed.blocks.map((b) => [b.lang, b.code, b.check])).toEqual([
      ["ts", "const x = 1;\n", { kind: "typecheck", with: ["a@1", "b"] }],
      ["sh", "a \\\n  b # c\n", undefined],
    ]);
    expect(parsed.problems).toEqual(['line 6: unknown check "bogus"']);
    expect(shellCommands("a \\\n  b # c\n")).toEqual(["a b"]);
  });
});
