/**
 * The Node versions Threadline runs on, as package.json's `engines` says them: 20.19 or later on
 * 20 (its require(esm), and the module hooks tsx and PGlite use), 22.12 or later on 22, and any
 * later major. npm only warns on a mismatch; this says it in one sentence before anything loads.
 */
export const NODE_ENGINES = "^20.19.0 || >=22.12.0";

/** The sentence for a Node outside NODE_ENGINES, or undefined when it fits. */
export function nodeVersionProblem(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const fits = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22;
  if (fits) return undefined;
  return `Threadline needs Node ${NODE_ENGINES} and this is Node ${version}: install Node 22 (or 20.19 or later), e.g. with nvm install 22, and start again.`;
}
