/**
 * `npm start`: the standalone server (standalone.ts). Its module graph (express, zod, pino, pg,
 * PGlite, the engine, the agents...) is evaluated in steps first, one module per turn of the
 * event loop: a single import evaluates it as one synchronous block, over a second on a busy CPU
 * (docs/startup.md). Rejected: static imports here, which are that single block.
 */
import "./node-check.ts";
import { loadInSteps, sibling } from "./import-in-steps.ts";

await loadInSteps(sibling("./standalone", import.meta.url));
await import("./standalone.ts");
