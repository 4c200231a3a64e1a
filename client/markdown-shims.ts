/**
 * Vite plugin: three of streamdown's rehype plugins and its code highlighter are replaced for the
 * app (see each shim's own comment): KaTeX moves from before the sanitizer to after it (in
 * harden's slot) and is loaded only when a message has math; `rehype-raw` shows HTML in a message
 * as text; shiki highlights a stated list of common languages instead of all of them. Only
 * streamdown's imports are redirected, so the shims' own imports reach the real packages.
 */
import path from "node:path";
import type { Plugin } from "vite";

const SHIMS: Record<string, string> = {
  "rehype-katex": "src/markdown/rehype-katex-none.ts",
  "rehype-harden": "src/markdown/rehype-harden-then-katex.ts",
  "rehype-raw": "src/markdown/rehype-raw-as-text.ts",
  shiki: "src/markdown/shiki-common-languages.ts",
};

export function markdownShims(clientRoot: string): Plugin {
  return {
    name: "threadline-markdown-shims",
    enforce: "pre",
    resolveId(source, importer) {
      const shim = SHIMS[source];
      if (!shim || !importer?.includes(`${path.sep}node_modules${path.sep}streamdown${path.sep}`)) return null;
      return path.join(clientRoot, shim);
    },
  };
}
