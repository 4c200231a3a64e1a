/**
 * Dojo feature "shared state": a recipe (state.recipe) that the user edits in the page and the
 * agent edits through update_recipe. The page sends the whole state with every run and also
 * tells the model the current recipe as application context, so the agent builds on the user's
 * edits; the tool's JSON patch reaches the page as a STATE_DELTA.
 */
import fjp from "fast-json-patch";
import { z } from "zod";
import { defineAgent, defineTool, type AgentDefinition } from "../define.ts";

export const SHARED_STATE_ID = "shared_state";

export const IngredientSchema = z.object({
  icon: z.string().describe("One emoji"),
  name: z.string(),
  amount: z.string().describe("e.g. 200 g, 2 tbsp"),
});
export const RecipeSchema = z.object({
  title: z.string(),
  skill_level: z.enum(["Beginner", "Intermediate", "Advanced"]),
  cooking_time: z.string().describe("e.g. 30 min"),
  ingredients: z.array(IngredientSchema),
  instructions: z.array(z.string()),
});
export type Recipe = z.infer<typeof RecipeSchema>;

/** Only the fields it gives change; a list it gives replaces the old list whole. */
export const UpdateRecipeArgsSchema = RecipeSchema.partial();

export const EMPTY_RECIPE: Recipe = { title: "", skill_level: "Beginner", cooking_time: "", ingredients: [], instructions: [] };

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function sharedStateAgent(): AgentDefinition {
  const updateRecipe = defineTool({
    name: "update_recipe",
    description:
      "Change the shared recipe (state.recipe). Give only the fields you change; ingredients and instructions, " +
      "when given, are the complete new lists.",
    inputSchema: UpdateRecipeArgsSchema,
    async execute(changes, ctx) {
      const before = asRecord(ctx.state.get());
      // The recipe as it is now, with the user's latest edits: the run's input state.
      const current = RecipeSchema.safeParse(before.recipe);
      const recipe: Recipe = { ...(current.success ? current.data : EMPTY_RECIPE), ...changes };
      // A delta, not a snapshot: the page sees which fields the agent touched.
      const ops = fjp.compare(before, { ...before, recipe });
      if (ops.length > 0) await ctx.state.patch(ops);
      return { ingredients: recipe.ingredients.length, instructions: recipe.instructions.length };
    },
  });
  return defineAgent({
    id: SHARED_STATE_ID,
    description: "Shared state: a recipe that you edit in the page and the agent edits with update_recipe.",
    instructions:
      "You are a cooking assistant working on a recipe the user also edits. The current recipe is given in the " +
      "application context; build on it (keep the user's changes) and change it only with update_recipe. " +
      "Then say in one sentence what you changed.",
    tools: [updateRecipe],
    maxTurns: 4,
  });
}
