/**
 * Vite plugin: KaTeX's stylesheet offers each of its 20 fonts as woff2, woff and ttf; the app
 * keeps woff2 only. A browser takes the first format it supports, and every browser that runs the
 * app's JavaScript (Vite's default target, the widely available baseline) supports woff2, so the
 * woff and ttf files were never fetched, yet they were 0.9 MB of the package that every install
 * downloads. Rejected: shipping them for browsers the rest of the app does not run in.
 */
import type { Plugin } from "vite";

const STYLESHEET = /[\\/]katex[\\/]dist[\\/]katex(\.min)?\.css$/;
/** `,url(fonts/KaTeX_X.woff) format("woff")` and the same for ttf, after the woff2 source. */
const OLDER_FORMATS = /,url\([^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)/g;

export function katexWoff2Only(): Plugin {
  return {
    name: "threadline-katex-woff2-only",
    enforce: "pre",
    transform(code, id) {
      if (!STYLESHEET.test(id.split("?")[0]!)) return null;
      return { code: code.replace(OLDER_FORMATS, ""), map: null };
    },
  };
}
