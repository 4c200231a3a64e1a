/**
 * Stands in for `rehype-katex` inside streamdown (client/markdown-shims.ts): nothing happens in
 * its slot, before the sanitizer; formulas are typeset after it (rehype-harden-then-katex.ts).
 */
export default function rehypeKatexNone() {
  return () => undefined;
}
