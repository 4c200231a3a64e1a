/**
 * Dojo feature "shared state": a recipe (state.recipe) that the user edits in the page and the
 * agent edits through `updateWorkingMemory`, the dojo reference agent's tool (Mastra's working
 * memory), with its argument shape `{memory: {recipe: {...}}}`. The page sends the whole state
 * with every run and the model also sees it (stateInContext, and the page's application
 * context), so the agent builds on the user's edits. While the model streams the call, predictState
 * merges `memory.recipe` so far into state.recipe (the fields given change, the others stay), so
 * the page fills the recipe in as it is written, STATE_DELTA after STATE_DELTA; the tool's own
 * write comes last (the dojo's Mastra spec asks for more than one delta during the run).
 */
import fjp from "fast-json-patch";
import { z } from "zod";
import { defineAgent, defineTool, type AgentDefinition } from "../define.ts";

export const SHARED_STATE_ID = "shared_state";

/** The dojo reference agents' name for the tool; their pages and recorded fixtures use it. */
export const UPDATE_WORKING_MEMORY_TOOL = "updateWorkingMemory";

export const IngredientSchema = z.object({
  icon: z.string().describe("One emoji"),
  name: z.string(),
  amount: z.string().describe("e.g. 200 g, 2 tbsp"),
});
export const RecipeSchema = z.object({
  title: z.string(),
  skill_level: z.enum(["Beginner", "Intermediate", "Advanced"]),
  cooking_time: z.string().describe("e.g. 30 min"),
  // The dojo's recipe has it; this app's page keeps it without drawing it.
  special_preferences: z.array(z.string()).optional().describe("e.g. Vegetarian, Low Carb"),
  ingredients: z.array(IngredientSchema),
  instructions: z.array(z.string()),
});
export type Recipe = z.infer<typeof RecipeSchema>;

/** Only the fields it gives change; a list it gives replaces the old list whole. */
export const RecipeChangesSchema = RecipeSchema.partial();
export const UpdateWorkingMemoryArgsSchema = z.object({
  memory: z.object({ recipe: RecipeChangesSchema }).describe("The working memory: the recipe, with the fields you change"),
});

export const EMPTY_RECIPE: Recipe = { title: "", skill_level: "Beginner", cooking_time: "", ingredients: [], instructions: [] };

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function sharedStateAgent(): AgentDefinition {
  const updateWorkingMemory = defineTool({
    name: UPDATE_WORKING_MEMORY_TOOL,
    description:
      "Change the shared recipe (state.recipe): memory.recipe holds only the fields you change; ingredients and " +
      "instructions, when given, are the complete new lists.",
    inputSchema: UpdateWorkingMemoryArgsSchema,
    async execute({ memory }, ctx) {
      const before = asRecord(ctx.state.get());
      // The recipe as it is now, with the user's latest edits (the run's input state), fields
      // this server does not know included: a merge, not a parse that would drop them.
      const recipe: Record<string, unknown> = { ...EMPTY_RECIPE, ...asRecord(before.recipe), ...memory.recipe };
      // A delta, not a snapshot: the page sees which fields the agent touched.
      const ops = fjp.compare(before, { ...before, recipe });
      if (ops.length > 0) await ctx.state.patch(ops);
      const count = (list: unknown) => (Array.isArray(list) ? list.length : 0);
      return { ingredients: count(recipe.ingredients), instructions: count(recipe.instructions) };
    },
  });
  return defineAgent({
    id: SHARED_STATE_ID,
    description: `Shared state: a recipe that you edit in the page and the agent edits with ${UPDATE_WORKING_MEMORY_TOOL}.`,
    greeting: "We share a recipe: edit it in the panel, or ask me to.",
    suggestions: ["Suggest a recipe", "Improve it"],
    instructions:
      "You are a cooking assistant working on a recipe the user also edits. The current recipe is in the shared " +
      `state; build on it (keep the user's changes) and change it only with ${UPDATE_WORKING_MEMORY_TOOL}. ` +
      "Then say in one sentence what you changed. Asked about the recipe, answer from the current state.",
    tools: [updateWorkingMemory],
    predictState: [{ tool: UPDATE_WORKING_MEMORY_TOOL, argument: ["memory", "recipe"], stateKey: "recipe", merge: true }],
    maxTurns: 4,
  });
}
