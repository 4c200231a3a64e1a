/**
 * The built-in memory tools an agent opts into (`defineAgent({ memory: true })`): remember, recall
 * and forget, over its tenant's memory (ctx.memory, memory.ts), in one namespace unless the model
 * names another. What an agent wrote is in its run's events: the tool call carries the key and the
 * value, and its result says what was kept.
 *
 * Built as ToolDefinitions directly (their names and zod schemas need none of defineTool's
 * checks): define.ts adds them, and calling defineTool here would make the two modules import
 * each other.
 */
import { z } from "zod";
import type { ToolDefinition } from "../agents/define.ts";
import { NAMESPACE } from "./memory.ts";

/** The namespace the tools use when the model names none. */
export const AGENT_MEMORY_NAMESPACE = "agent";

export const REMEMBER_TOOL = "remember";
export const RECALL_TOOL = "recall";
export const FORGET_TOOL = "forget";

const namespace = z.string().regex(NAMESPACE).optional().describe(`Where to keep it (default "${AGENT_MEMORY_NAMESPACE}")`);

/** A zod tool, typed as defineTool types it. */
function tool<P extends z.ZodType>(def: { name: string; description: string; inputSchema: P; execute: ToolDefinition<P>["execute"] }): ToolDefinition {
  return def as unknown as ToolDefinition;
}

export function memoryTools(defaultNamespace = AGENT_MEMORY_NAMESPACE): ToolDefinition[] {
  return [
    tool({
      name: REMEMBER_TOOL,
      description: "Remember a fact for later conversations (any thread of this user's organisation): a short key and the fact.",
      inputSchema: z.object({ key: z.string().min(1).max(256).describe("A short name for the fact, e.g. favourite colour"), value: z.unknown().describe("The fact (text or JSON)"), namespace }),
      async execute({ key, value, namespace: ns }, ctx) {
        const entry = await ctx.memory.put(ns ?? defaultNamespace, key, value ?? null);
        return { remembered: true, namespace: entry.namespace, key: entry.key };
      },
    }),
    tool({
      name: RECALL_TOOL,
      description: "Recall facts remembered in earlier conversations: search by words (any of them match), or list the keys that start with a prefix.",
      inputSchema: z.object({ query: z.string().max(500).optional(), prefix: z.string().max(256).optional(), namespace }),
      async execute({ query, prefix, namespace: ns }, ctx) {
        const entries = await ctx.memory.search({ namespace: ns ?? defaultNamespace, ...(query !== undefined && { q: query, any: true }), ...(prefix !== undefined && { prefix }), limit: 10 });
        return { entries: entries.map((e) => ({ key: e.key, value: e.value })) };
      },
    }),
    tool({
      name: FORGET_TOOL,
      description: "Forget a remembered fact, by its key.",
      inputSchema: z.object({ key: z.string().min(1).max(256), namespace }),
      async execute({ key, namespace: ns }, ctx) {
        return { forgotten: await ctx.memory.delete(ns ?? defaultNamespace, key), key };
      },
    }),
  ];
}
