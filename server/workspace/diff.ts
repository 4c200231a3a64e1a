/**
 * A small unified diff (the `diff -u` format) for the artifact of an `edit`. Internal rather than
 * the `diff` package: that one is only a transitive dependency here, with no types. Lines are
 * compared after the common prefix and suffix are set aside (an edit's change is usually small),
 * then by Myers' O(ND) algorithm; past DIFF_MAX_EDIT_DISTANCE the middle is shown as replaced
 * whole (still a correct patch, just not a minimal one).
 */

/** Edit distance past which the diff stops looking for the shortest script. */
export const DIFF_MAX_EDIT_DISTANCE = 2_000;

type Op = { kind: " " | "-" | "+"; line: string };

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  // "a\nb\n" is two lines; "a\nb" is two lines, the last without a newline (marked below).
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Myers' shortest edit script of a → b (no common prefix/suffix assumed), or null past the bound. */
function myers(a: string[], b: string[]): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // Round d only reads diagonals -d-1..d+1 of the previous round: that slice is all it keeps
  // (O(D²) memory in all, whatever the files' length).
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, DIFF_MAX_EDIT_DISTANCE); d++) {
    trace.push(v.slice(Math.max(0, offset - d - 1), offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], offset: number, dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const slice = trace[d]!;
    const base = Math.max(0, offset - d - 1);
    const at = (k: number) => slice[offset + k - base]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: " ", line: a[--x]! });
      y--;
    }
    if (down) ops.push({ kind: "+", line: b[--y]! });
    else ops.push({ kind: "-", line: a[--x]! });
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: " ", line: a[--x]! });
    y--;
  }
  return ops.reverse();
}

/**
 * The unified diff of `before` → `after`, labelled a/`path` and b/`path`, with `context` lines
 * around each change; "" when they are equal.
 */
export function unifiedDiff(before: string, after: string, path: string, context = 3): string {
  if (before === after) return "";
  const a = splitLines(before);
  const b = splitLines(after);
  const aNoEol = before !== "" && !before.endsWith("\n");
  const bNoEol = after !== "" && !after.endsWith("\n");
  // The last line differs when only its newline does: mark it so, by comparing it with its EOL state.
  const tagA = a.map((l, i) => (i === a.length - 1 && aNoEol ? `${l}\u0000` : l));
  const tagB = b.map((l, i) => (i === b.length - 1 && bNoEol ? `${l}\u0000` : l));
  let pre = 0;
  while (pre < tagA.length && pre < tagB.length && tagA[pre] === tagB[pre]) pre++;
  let suf = 0;
  while (suf < tagA.length - pre && suf < tagB.length - pre && tagA[tagA.length - 1 - suf] === tagB[tagB.length - 1 - suf]) suf++;
  const midA = tagA.slice(pre, tagA.length - suf);
  const midB = tagB.slice(pre, tagB.length - suf);
  const mid = myers(midA, midB) ?? [...midA.map((line): Op => ({ kind: "-", line })), ...midB.map((line): Op => ({ kind: "+", line }))];
  const ops: Op[] = [
    ...tagA.slice(0, pre).map((line): Op => ({ kind: " ", line })),
    ...mid,
    ...tagA.slice(tagA.length - suf).map((line): Op => ({ kind: " ", line })),
  ];

  const out = [`--- a/${path}`, `+++ b/${path}`];
  // Hunks: runs of changes with up to 2*context equal lines between them, plus context around.
  let i = 0;
  let aLine = 0;
  let bLine = 0;
  const pos: { a: number; b: number }[] = ops.map((op) => {
    const p = { a: aLine, b: bLine };
    if (op.kind !== "+") aLine++;
    if (op.kind !== "-") bLine++;
    return p;
  });
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === " ") i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== " ") end++;
      let eq = end;
      while (eq < ops.length && ops[eq]!.kind === " ") eq++;
      if (eq < ops.length && eq - end <= 2 * context) {
        end = eq;
        continue;
      }
      end = Math.min(ops.length, end + context);
      break;
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== "+").length;
    const bCount = hunk.filter((o) => o.kind !== "-").length;
    const aStart = aCount === 0 ? pos[start]!.a : pos[start]!.a + 1;
    const bStart = bCount === 0 ? pos[start]!.b : pos[start]!.b + 1;
    out.push(`@@ -${aStart}${aCount === 1 ? "" : `,${aCount}`} +${bStart}${bCount === 1 ? "" : `,${bCount}`} @@`);
    for (const op of hunk) {
      const noEol = op.line.endsWith("\u0000");
      out.push(op.kind + (noEol ? op.line.slice(0, -1) : op.line));
      if (noEol) out.push("\\ No newline at end of file");
    }
    i = end;
  }
  return `${out.join("\n")}\n`;
}
