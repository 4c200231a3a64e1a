/**
 * The `openai` SDK, an optional peer dependency: imported (dynamic import(), which Node caches)
 * when an OpenAI-compatible model first needs it, so an install that uses the demo model or
 * another provider does without its 20 MB. Rejected: a static import (every install pays for
 * it), and a top-level await in this module (the package's entry could no longer be
 * require()d from CommonJS).
 */
import { createRequire } from "node:module";
import { isMissingModule, missingPackageError } from "../missing-package.ts";

export type OpenAISdk = typeof import("openai");

/**
 * The SDK line these adapters are tested against (the devDependency), which the missing-SDK
 * sentence and the README name. package.json declares the peer as "*", not "^6.49.0": npm 11
 * resolves the optional peers of CopilotKit's runtime (another optional peer of ours, not
 * installed) into the same peer set, some of which want openai 4, and then refuses the README's
 * install with ERESOLVE over a package it was not going to install (npm/cli#8416; measured by
 * test/package/package.test.ts).
 */
export const OPENAI_SDK_RANGE = "6";
const WHO = "An OpenAI-compatible model (openai:, openrouter:, ollama:)";

export async function loadOpenAISdk(): Promise<OpenAISdk> {
  try {
    return await import("openai");
  } catch (err) {
    if (isMissingModule(err, "openai")) throw missingPackageError(WHO, "openai", OPENAI_SDK_RANGE, err);
    throw err;
  }
}

/**
 * Throws the same ModelError when the SDK cannot be found, without loading it: the resolver asks
 * when it builds a model, so a server configured for OpenAI without the SDK fails at start.
 */
export function assertOpenAISdkInstalled(): void {
  try {
    createRequire(import.meta.url).resolve("openai");
  } catch (err) {
    if (isMissingModule(err, "openai")) throw missingPackageError(WHO, "openai", OPENAI_SDK_RANGE, err);
    throw err;
  }
}
