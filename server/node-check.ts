/**
 * Imported first by the server's entries (main.ts, cli.ts): on a Node outside the engines, one
 * sentence and exit code 1, before any other module loads (on Node 18 the start failed later with
 * no word of the cause). Rejected: a check inside the start, after modules that may not load there.
 */
import { nodeVersionProblem } from "./node-version.ts";

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
