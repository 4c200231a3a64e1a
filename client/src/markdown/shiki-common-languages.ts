/**
 * Stands in for `shiki` inside streamdown (client/markdown-shims.ts): the code highlighter with
 * the languages a chat about code mostly shows, each still loaded when a block first needs it.
 * A fence in any other language is drawn as plain text (streamdown's own fallback for a language
 * its highlighter does not list), and the two themes are streamdown's defaults, the only ones
 * CopilotKit's renderer asks for.
 *
 * Why: streamdown imports shiki's full bundle, and Vite turns each of its ~340 grammars and ~65
 * themes into a lazy chunk (with a Brotli copy): 12 MB of the package's 24 MB web app, downloaded
 * by every install of the package though a browser fetches only what a message uses. Rejected:
 * dropping the highlighter (code in answers is the common case), and fetching grammars from a CDN
 * (streamdown's newer option: the app would then reach a third party).
 *
 * streamdown uses `createHighlighter({ themes, langs: [lang], engine })` and
 * `Object.hasOwn(bundledLanguages, lang)`; both are here with shiki's own fine-grained core.
 */
import type { DynamicImportLanguageRegistration, DynamicImportThemeRegistration } from "shiki/core";
import { createBundledHighlighter } from "shiki/core";
import { createJavaScriptRegexEngine } from "shiki/engine/javascript";

const typescript: DynamicImportLanguageRegistration = () => import("shiki/langs/typescript.mjs");
const javascript: DynamicImportLanguageRegistration = () => import("shiki/langs/javascript.mjs");
const shellscript: DynamicImportLanguageRegistration = () => import("shiki/langs/shellscript.mjs");
const python: DynamicImportLanguageRegistration = () => import("shiki/langs/python.mjs");
const yaml: DynamicImportLanguageRegistration = () => import("shiki/langs/yaml.mjs");
const markdown: DynamicImportLanguageRegistration = () => import("shiki/langs/markdown.mjs");
const rust: DynamicImportLanguageRegistration = () => import("shiki/langs/rust.mjs");
const cpp: DynamicImportLanguageRegistration = () => import("shiki/langs/cpp.mjs");
const docker: DynamicImportLanguageRegistration = () => import("shiki/langs/docker.mjs");

/** The languages, by shiki's id and by each alias shiki gives it (a fence may use either). */
export const bundledLanguages: Record<string, DynamicImportLanguageRegistration> = {
  typescript,
  ts: typescript,
  mts: typescript,
  cts: typescript,
  javascript,
  js: javascript,
  mjs: javascript,
  cjs: javascript,
  tsx: () => import("shiki/langs/tsx.mjs"),
  jsx: () => import("shiki/langs/jsx.mjs"),
  json: () => import("shiki/langs/json.mjs"),
  jsonc: () => import("shiki/langs/jsonc.mjs"),
  shellscript,
  bash: shellscript,
  sh: shellscript,
  shell: shellscript,
  zsh: shellscript,
  shellsession: () => import("shiki/langs/shellsession.mjs"),
  console: () => import("shiki/langs/shellsession.mjs"),
  python,
  py: python,
  html: () => import("shiki/langs/html.mjs"),
  css: () => import("shiki/langs/css.mjs"),
  sql: () => import("shiki/langs/sql.mjs"),
  yaml,
  yml: yaml,
  toml: () => import("shiki/langs/toml.mjs"),
  markdown,
  md: markdown,
  diff: () => import("shiki/langs/diff.mjs"),
  go: () => import("shiki/langs/go.mjs"),
  rust,
  rs: rust,
  java: () => import("shiki/langs/java.mjs"),
  c: () => import("shiki/langs/c.mjs"),
  cpp,
  "c++": cpp,
  docker,
  dockerfile: docker,
  xml: () => import("shiki/langs/xml.mjs"),
};

const bundledThemes: Record<string, DynamicImportThemeRegistration> = {
  "github-light": () => import("shiki/themes/github-light.mjs"),
  "github-dark": () => import("shiki/themes/github-dark.mjs"),
};

export const createHighlighter = createBundledHighlighter<string, string>({
  langs: bundledLanguages,
  themes: bundledThemes,
  // streamdown passes its own engine (this one, forgiving); this is the default for any other caller.
  engine: () => createJavaScriptRegexEngine(),
});
