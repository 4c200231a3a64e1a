/**
 * A migration script cut into its statements, for a migration that runs outside a transaction:
 * Postgres runs a multi-statement query string as one implicit transaction, where
 * CREATE INDEX CONCURRENTLY is refused, so each statement goes on its own.
 *
 * A `;` ends a statement only outside quotes and comments: '…' strings ('' inside), E'…' strings
 * (backslash escapes), "…" identifiers, $tag$…$tag$ bodies, -- and nested /* … *\/ comments.
 * Rejected: the extended protocol (one statement per Parse), which would refuse the script rather
 * than cut it; and a split on `;` at line ends, which a function body or a string breaks.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let hasCode = false; // the current statement has more than blanks and comments
  let i = 0;
  const n = script.length;
  const end = () => {
    const text = script.slice(start, i).trim();
    if (hasCode) statements.push(text);
    hasCode = false;
  };
  while (i < n) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === "-" && next === "-") {
      const eol = script.indexOf("\n", i);
      i = eol === -1 ? n : eol + 1;
    } else if (c === "/" && next === "*") {
      i = afterBlockComment(script, i);
    } else if (c === "'") {
      hasCode = true;
      const escapes = /[eE]/.test(script[i - 1] ?? "") && !/[\w$]/.test(script[i - 2] ?? "");
      i = afterQuoted(script, i, "'", escapes);
    } else if (c === '"') {
      hasCode = true;
      i = afterQuoted(script, i, '"', false);
    } else if (c === "$" && !/[\w$]/.test(script[i - 1] ?? "")) {
      hasCode = true;
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(script.slice(i))?.[0];
      if (tag) {
        const close = script.indexOf(tag, i + tag.length);
        if (close === -1) throw new Error(`Unterminated dollar-quoted text ${tag} at offset ${i}.`);
        i = close + tag.length;
      } else {
        i++; // $1, a parameter
      }
    } else if (c === ";") {
      end();
      i++;
      start = i;
    } else {
      if (!/\s/.test(c)) hasCode = true;
      i++;
    }
  }
  end();
  return statements;
}

/** The offset after the comment opening at `i`; Postgres nests block comments. */
function afterBlockComment(s: string, i: number): number {
  let depth = 0;
  while (i < s.length) {
    if (s.startsWith("/*", i)) {
      depth++;
      i += 2;
    } else if (s.startsWith("*/", i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  throw new Error("Unterminated /* comment.");
}

/** The offset after the quoted text opening at `i` (a doubled quote stays inside). */
function afterQuoted(s: string, i: number, quote: string, backslashEscapes: boolean): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (backslashEscapes && c === "\\") j++;
    else if (c === quote) {
      if (s[j + 1] === quote) j++;
      else return j + 1;
    }
  }
  throw new Error(`Unterminated ${quote}-quoted text at offset ${i}.`);
}
