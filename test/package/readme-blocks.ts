/**
 * The manual's fenced code blocks (README.md, docs/*.md) and how each is checked. A block is
 * checked when the line before it (blank lines aside) is a marker `<!-- check: <how> -->`:
 *
 *   install              sh: the getting-started app's install, run as printed in a fresh
 *                        `npm init -y` project; its installed size and package count are measured
 *   install-typescript   sh: run as printed before the type-check
 *   install-copilotkit   sh: run as printed before the CopilotKit door is checked working
 *   app                  ts: the getting-started app, type-checked, run with tsx (CommonJS
 *                        project) and as app.mjs with node, and asked the `ask` block's question
 *   ask                  sh: a curl to the app, whose path and body the test sends
 *   copilotkit-app       ts: run before install-copilotkit (it must say what to install) and after
 *                        (its runtime must answer); type-checked
 *   run-remote           ts: the remoteAgent recipe, run with tsx against the remote-python block
 *                        (on a free port, through RESEARCH_URL) and asked the ask-remote block's
 *                        question; type-checked. docs/remote-agents.md prints the same text
 *   ask-remote           sh: a curl to the remote recipe, whose path and body the test sends
 *   remote-python        python (docs/remote-agents.md): the FastAPI remote, run as printed
 *                        (AGENT_PORT: a free port)
 *   run-runner           ts: the own-runtime recipe, run with tsx after install-copilotkit, its
 *                        OpenAI upstream aimock (OPENAI_BASE_URL), driven by CopilotKit's client;
 *                        type-checked. docs/remote-agents.md prints the same text
 *   typecheck            ts: type-checked as a file of its own in that project
 *   typecheck with <p…>  ts: the same, after installing the packages named
 *   skip: <reason>       not checked, for the reason given
 *
 * Every ts/js block of the manual (README.md and docs/*.md) must carry one
 * (test/package/readme-blocks.test.ts); package.test.ts runs them. Each kind but typecheck and skip
 * is printed once in the manual, wherever a reader meets it (docs/getting-started.md,
 * docs/durable-threads.md); docs/remote-agents.md marks its copies of the recipes and the Python
 * remote they run against the same way, and is read apart (MANUAL_COPIES).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export interface ReadmeBlock {
  /** The page it is printed in, relative to the repository (README.md, docs/…). */
  file: string;
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  check: Check | undefined;
}

export type Check =
  | { kind: SimpleKind }
  | { kind: "typecheck"; with: string[] }
  | { kind: "skip"; reason: string };

export const CODE_LANGS = new Set(["ts", "typescript", "js", "javascript", "mjs", "cjs", "tsx", "jsx"]);

const SIMPLE_KINDS = [
  "install",
  "install-typescript",
  "install-copilotkit",
  "app",
  "ask",
  "copilotkit-app",
  "run-remote",
  "ask-remote",
  "remote-python",
  "run-runner",
] as const;
type SimpleKind = (typeof SIMPLE_KINDS)[number];
const SIMPLE = new Set<string>(SIMPLE_KINDS);

/** A marker's text as a Check, or an Error saying why it is not one. */
export function parseCheck(text: string): Check | Error {
  const how = text.trim();
  if (SIMPLE.has(how)) return { kind: how as SimpleKind };
  if (how === "typecheck") return { kind: "typecheck", with: [] };
  const withPkgs = /^typecheck with (.+)$/.exec(how);
  if (withPkgs) return { kind: "typecheck", with: withPkgs[1]!.trim().split(/\s+/) };
  const skip = /^skip: (.+)$/.exec(how);
  if (skip) return { kind: "skip", reason: skip[1]!.trim() };
  return new Error(`unknown check "${how}"`);
}

const FENCE_OPEN = /^(\s*)```(\S*)\s*$/;
const MARKER = /^\s*<!-- check: (.*?) -->\s*$/;

export interface ParsedReadme {
  blocks: ReadmeBlock[];
  /** Markers that are malformed, unknown, or not followed by a block. */
  problems: string[];
}

export function readmeBlocks(readme: string, file = "README.md"): ParsedReadme {
  const lines = readme.split("\n");
  const blocks: ReadmeBlock[] = [];
  const problems: string[] = [];
  let pending: { check: Check; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = MARKER.exec(line);
    if (marker) {
      if (pending) problems.push(`line ${pending.line}: a check marker not followed by a code block`);
      const check = parseCheck(marker[1]!);
      if (check instanceof Error) problems.push(`line ${i + 1}: ${check.message}`);
      else pending = { check, line: i + 1 };
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      const indent = open[1]!;
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && lines[j]!.trim() !== "```") body.push(lines[j++]!.slice(indent.length));
      blocks.push({ file, lang: open[2]!, code: `${body.join("\n")}\n`, line: i + 1, check: pending?.check });
      pending = undefined;
      i = j;
      continue;
    }
    if (pending && line.trim() !== "") {
      problems.push(`line ${pending.line}: a check marker not followed by a code block`);
      pending = undefined;
    }
  }
  if (pending) problems.push(`line ${pending.line}: a check marker not followed by a code block`);
  return { blocks, problems };
}

/** The one block with this check; throws when there is none or more than one. */
export function theBlock(blocks: ReadmeBlock[], kind: Check["kind"], file = "the manual"): ReadmeBlock {
  const found = blocks.filter((b) => b.check?.kind === kind);
  if (found.length !== 1) throw new Error(`${file} has ${found.length} blocks marked <!-- check: ${kind} -->; expected one`);
  return found[0]!;
}

/** The commands of a sh block, one per line, comments and continuations resolved. */
export function shellCommands(code: string): string[] {
  return code
    .replace(/\s*\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** The path and JSON body of an ask block's `curl … http://localhost:3000<path> … -d '<json>'`. */
export function curlRequest(code: string): { path: string; body: unknown } {
  const command = shellCommands(code).join(" ");
  const url = /https?:\/\/localhost:\d+(\/\S*)/.exec(command)?.[1];
  const data = /-d\s+'([^']*)'/.exec(command)?.[1];
  if (!url || data === undefined) throw new Error(`the block is not a curl with a localhost URL and -d '<json>': ${command}`);
  return { path: url, body: JSON.parse(data) as unknown };
}

/** Pages that print copies of blocks the manual prints (checked equal), read apart from it. */
export const MANUAL_COPIES = new Set(["docs/remote-agents.md"]);

/** The manual's pages, relative to the repository: the README, then docs/*.md by name. */
export function manualPages(root: string): string[] {
  const docs = readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs];
}

/** The blocks of these pages (by default the manual less its copies), problems named by page. */
export function manualBlocks(root: string, pages = manualPages(root).filter((p) => !MANUAL_COPIES.has(p))): ParsedReadme {
  const blocks: ReadmeBlock[] = [];
  const problems: string[] = [];
  for (const page of pages) {
    const parsed = readmeBlocks(readFileSync(path.join(root, page), "utf8"), page);
    blocks.push(...parsed.blocks);
    problems.push(...parsed.problems.map((p) => `${page}: ${p}`));
  }
  return { blocks, problems };
}
