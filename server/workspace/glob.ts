/**
 * Glob patterns for `find` and the listing: `*` (any run of characters but "/"), `**` (any
 * number of directories), `?`, `[abc]`, `{a,b}`. A pattern without "/" matches a file's name
 * (like `find -name`); one with "/" matches its workspace-relative path.
 */

/** Longest glob accepted (the translation is linear, the match is not unbounded). */
export const GLOB_MAX_CHARS = 1_000;

function escapeRegexChar(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function globToRegExp(glob: string): RegExp {
  if (glob.length > GLOB_MAX_CHARS) throw new Error(`the pattern is longer than ${GLOB_MAX_CHARS} characters`);
  let re = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        // "**/" matches zero or more directories; a trailing "**" anything.
        if (glob[i + 2] === "/") {
          re += "(?:[^/]*/)*";
          i += 2;
        } else {
          re += ".*";
          i += 1;
        }
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) re += "\\[";
      else {
        let body = glob.slice(i + 1, close).replace(/\\/g, "\\\\");
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        re += `[${body}]`;
        i = close;
      }
    } else if (c === "{") {
      braces++;
      re += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      re += ")";
    } else if (c === "," && braces > 0) re += "|";
    else re += escapeRegexChar(c);
  }
  if (braces > 0) throw new Error("the pattern has an unclosed \"{\"");
  return new RegExp(`^${re}$`, "s");
}

/** A matcher for workspace-relative paths ("/"-separated). */
export function globMatcher(glob: string): (relPath: string) => boolean {
  const re = globToRegExp(glob.replace(/^\.\//, ""));
  const byName = !glob.includes("/");
  return (rel) => re.test(byName ? rel.slice(rel.lastIndexOf("/") + 1) : rel);
}
