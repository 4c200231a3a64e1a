/**
 * rehype-katex, loaded when first needed: the chat's markdown renderer (streamdown) runs it from
 * rehype-harden-then-katex.ts (client/markdown-shims.ts). streamdown imports KaTeX up front, which
 * put 260 KB of it on every first load although few answers hold math. Here KaTeX is fetched the first time
 * a message has math; until it arrives the formula shows as its TeX source, and `katexLoaded`
 * tells the chat to render again. Rejected: an async transformer that awaits the import, which
 * streamdown's synchronous pipeline (runSync) refuses.
 */
import type { Element, Root, RootContent } from "hast";
import type { Options } from "rehype-katex";

type Transform = (tree: Root, file: unknown) => void;
type Attacher = (options?: Readonly<Options> | null) => Transform;

let real: Attacher | null = null;
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

const MATH_CLASSES = ["language-math", "math-inline", "math-display"];

function hasMath(node: Root | RootContent): boolean {
  if (node.type === "element") {
    const classes = (node as Element).properties?.className;
    if (Array.isArray(classes) && classes.some((c) => MATH_CLASSES.includes(String(c)))) return true;
  }
  return "children" in node && node.children.some(hasMath);
}

function load(): void {
  if (loading) return;
  loading = import("rehype-katex").then(
    (m) => {
      real = m.default as unknown as Attacher;
      for (const fn of listeners) fn();
    },
    (err: unknown) => {
      // Offline or a stale deploy: the TeX source stays visible; a later message tries again.
      console.warn("KaTeX could not be loaded; formulas show as TeX", err);
      loading = null;
    },
  );
}

/** Whether KaTeX is here (for useSyncExternalStore). */
export function katexLoaded(): boolean {
  return real !== null;
}

export function onKatexLoaded(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export default function rehypeKatexLazy(options?: Readonly<Options> | null): Transform {
  let transform: Transform | null = null;
  return (tree, file) => {
    if (real) {
      transform ??= real(options);
      return transform(tree, file);
    }
    if (hasMath(tree)) load();
  };
}
