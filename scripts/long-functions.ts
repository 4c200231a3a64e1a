/**
 * Lists functions longer than a limit (default 60 lines), longest first: the ones due a split by
 * job. Uses the TypeScript parser, not a regex, so methods, arrows and nested functions count.
 *
 *   npx tsx scripts/long-functions.ts [maxLines] [dir...]
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import { execFileSync } from "node:child_process";

const [limitArg, ...dirs] = process.argv.slice(2);
const limit = Number(limitArg ?? 60);
const roots = dirs.length > 0 ? dirs : ["protocol", "server", "client/src"];
const files = execFileSync("git", ["ls-files", "--", ...roots], { encoding: "utf8" })
  .split("\n")
  .filter((f) => /\.tsx?$/.test(f));

const rows: { lines: number; where: string; name: string }[] = [];
for (const file of files) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      if (end - start + 1 > limit) rows.push({ lines: end - start + 1, where: `${file}:${start}`, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  return "(anonymous)";
}

rows.sort((a, b) => b.lines - a.lines);
for (const r of rows) console.log(`${String(r.lines).padStart(4)}  ${r.where}  ${r.name}`);
