/**
 * Every relative link of the README and the manual (docs/*.md) reaches something: the file it
 * names exists, and a `#anchor` names a heading of the target as GitHub renders its ids. Moving a
 * section from one page to another (issue 35 moved the README's into docs/) then fails here for
 * every link left pointing at its old place, instead of at a reader's click.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PAGES = ["README.md", ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks, fences blanked line for line (so line numbers hold). */
function prose(markdown: string): string[] {
  let fence = false;
  return markdown.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fence = !fence;
      return "";
    }
    return fence ? "" : line;
  });
}

/**
 * A heading's id as GitHub makes it (the rule github-slugger implements, which is not installed
 * here): the rendered text (inline code, links and emphasis reduced to their text), lower-cased,
 * every character that is not a letter, a mark, a digit, `_`, `-` or a space dropped, each space
 * a `-`; a repeated id gets `-1`, `-2`, … in page order.
 */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .replace(/`/g, "")
      .replace(/(\*\*|__|\*)(.+?)\1/g, "$2");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

interface Link {
  page: string;
  line: number;
  url: string;
}

/** Relative links and image sources of a page: Markdown `](url)` and HTML `src="url"`, outside code. */
function relativeLinks(page: string): Link[] {
  const links: Link[] = [];
  prose(readFileSync(path.join(ROOT, page), "utf8")).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, "");
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)|\bsrc="([^"]+)"/g)) {
      const url = m[1] ?? m[2]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(url)) continue; // https:, mailto:: not ours to check
      links.push({ page, line: i + 1, url });
    }
  });
  return links;
}

/** Why a link does not reach its target, or undefined when it does. */
function brokenBecause({ page, url }: Link): string | undefined {
  const [file, anchor] = url.split("#", 2) as [string, string | undefined];
  const target = file === "" ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), decodeURIComponent(file));
  if (!existsSync(target)) return `${path.relative(ROOT, target)} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(target).isDirectory() || !target.endsWith(".md")) return `#${anchor} on a file that is not Markdown`;
  if (!headingIds(readFileSync(target, "utf8")).has(anchor)) return `${path.relative(ROOT, target)} has no heading #${anchor}`;
  return undefined;
}

describe("links of the README and docs/*.md", () => {
  it("makes GitHub's heading ids (a guard on this test itself)", () => {
    const ids = headingIds(
      ["# The package's exports", "## threadline/protocol", "### Interrupts (a backend step that waits for a person)", "## `useInterrupt` and **more**", "## Races", "## Races", "```", "# not a heading", "```"].join("\n"),
    );
    expect([...ids]).toEqual(["the-packages-exports", "threadlineprotocol", "interrupts-a-backend-step-that-waits-for-a-person", "useinterrupt-and-more", "races", "races-1"]);
  });

  it("reads the pages it should (a guard on this test itself)", () => {
    expect(PAGES).toEqual(expect.arrayContaining(["README.md", "docs/README.md", "docs/configuration.md", "docs/getting-started.md"]));
    const all = PAGES.flatMap(relativeLinks);
    expect(all.length).toBeGreaterThan(200);
    expect(all.filter((l) => l.url.includes("#")).length).toBeGreaterThan(100);
    expect(brokenBecause({ page: "README.md", line: 0, url: "docs/models.md#no-such-heading" })).toMatch(/no heading/);
    expect(brokenBecause({ page: "README.md", line: 0, url: "docs/no-such-page.md" })).toMatch(/does not exist/);
  });

  it("keeps the README the front door (issue 35): at most 300 lines, and every docs page listed in docs/README.md", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    const index = readFileSync(path.join(ROOT, "docs/README.md"), "utf8");
    const unlisted = PAGES.filter((p) => p.startsWith("docs/") && p !== "docs/README.md" && !index.includes(`](${path.basename(p)})`));
    expect(unlisted).toEqual([]);
  });

  it.each(PAGES)("%s: every relative link reaches an existing file, and every #anchor a heading of it", (page) => {
    const broken = relativeLinks(page).flatMap((link) => {
      const why = brokenBecause(link);
      return why === undefined ? [] : [`${page}:${link.line} (${link.url}): ${why}`];
    });
    expect(broken).toEqual([]);
  });
});
