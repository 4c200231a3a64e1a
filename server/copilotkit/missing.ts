/**
 * What an application is told when it mounts copilotkit() without `@copilotkit/runtime`
 * installed. Its own module, apart from the loader (lazy.ts): the package exports it, and its
 * declarations must not lead to the runtime's types, which an application without the runtime
 * cannot resolve.
 */
import { ThreadlineError } from "../errors.ts";

/** The runtime line this door is built and tested against: the peer range in package.json. */
export const COPILOTKIT_RUNTIME_INSTALL = "npm install @copilotkit/runtime@1.75";

/** 503 on the door, and start()'s rejection, when `@copilotkit/runtime` is not installed. */
export class CopilotkitRuntimeMissingError extends ThreadlineError {
  override readonly name: string = "CopilotkitRuntimeMissingError";
  constructor(cause: unknown) {
    super(
      "COPILOTKIT_RUNTIME_MISSING",
      503,
      `copilotkit() needs @copilotkit/runtime, an optional peer dependency of threadline that is not installed: run \`${COPILOTKIT_RUNTIME_INSTALL}\` and start the server again.`,
      {},
      { cause },
    );
  }
}
