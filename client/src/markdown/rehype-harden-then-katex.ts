/**
 * Stands in for `rehype-harden` inside streamdown (client/markdown-shims.ts): harden as before,
 * then formulas typeset by KaTeX (loaded when first needed, rehype-katex-lazy.ts). streamdown
 * runs KaTeX before its sanitizer, which strips KaTeX's markup (its classes, the MathML), so a
 * formula came out as jumbled letters; harden is the last step, after the sanitizer, so KaTeX's
 * output (built by KaTeX from the TeX, no HTML of the message's own) survives here.
 */
import type { Root } from "hast";
import { harden as realHarden } from "rehype-harden";
import rehypeKatexLazy from "./rehype-katex-lazy.ts";

type HardenOptions = Parameters<typeof realHarden>[0];

export * from "rehype-harden";

export function harden(options: HardenOptions) {
  const hardened = realHarden(options) as (tree: Root) => void;
  const katex = rehypeKatexLazy({ errorColor: "var(--color-muted-foreground)" });
  return (tree: Root, file: unknown) => {
    hardened(tree);
    katex(tree, file);
  };
}
