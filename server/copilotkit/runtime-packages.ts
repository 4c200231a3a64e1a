/**
 * The packages the CopilotKit door builds on, resolved from CopilotKit's runtime itself:
 * `@ag-ui/client` (the 0.0.x line the runtime calls its agents through) and `rxjs` (whose
 * Observables the runtime consumes). Both are the runtime's own dependencies, so an application
 * that installed `@copilotkit/runtime` has exactly the versions it needs, wherever npm put them.
 * Rejected: declaring them as threadline's dependencies (every install pays for a door most
 * never open), and importing them by bare name from here (that finds whatever the application
 * hoisted, such as @ag-ui/client 1.x, not what the runtime speaks).
 *
 * Importing this module fails with MODULE_NOT_FOUND when the runtime is not installed; the
 * handler's loader (lazy.ts) turns that into a sentence that says what to install.
 */
import { createRequire } from "node:module";
import type * as AgUiClient from "@ag-ui/client-0059";
import type * as Rxjs from "rxjs";

const fromRuntime = createRequire(createRequire(import.meta.url).resolve("@copilotkit/runtime/v2"));

export const agui = fromRuntime("@ag-ui/client") as typeof AgUiClient;
export const rxjs = fromRuntime("rxjs") as typeof Rxjs;
