/**
 * The one rule for a provider package that is an optional peer dependency (the openai SDK, the
 * @ai-sdk/* providers): imported on first use, and when it is not installed, a ModelError
 * MODEL_UNAVAILABLE whose sentence is the command to run.
 */
import { ModelError } from "./errors.ts";

/** True when `err` is Node's "cannot find the package `pkg`" (ESM or CommonJS resolution). */
export function isMissingModule(err: unknown, pkg: string): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && typeof e.message === "string" && e.message.includes(pkg);
}

/** `who` needs `pkg` (e.g. "The anthropic provider needs"); `range` is the peer range's line, tested. */
export function missingPackageError(who: string, pkg: string, range: string, cause?: unknown): ModelError {
  return new ModelError("MODEL_UNAVAILABLE", `${who} needs ${pkg}, an optional peer dependency of threadline that is not installed: run \`npm install ${pkg}@${range}\` and start again.`, {
    cause,
    retryable: false,
  });
}
