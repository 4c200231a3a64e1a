/**
 * The demo model on the shared state agent. It reads the recipe the page sends as context (with
 * the user's edits) and answers with updateWorkingMemory (`{memory: {recipe}}`): a starter recipe when there is none, else
 * the user's ingredients and steps plus one of its own. So a user's edit visibly reaches the
 * model, and the model's edit visibly reaches the page.
 */
import type { DemoFixture } from "../fixture.ts";
import { RecipeSchema, UPDATE_WORKING_MEMORY_TOOL, type Recipe } from "../../agents/demos/shared-state.ts";
import { answeredCalls, contextValue, endsWithUser, lastResultIs, offers, parseObject, toolCall } from "../request.ts";

const TOOL = UPDATE_WORKING_MEMORY_TOOL;

/** The page's context entry names the recipe; see client/src/demos/shared-state. */
const CONTEXT_KEY = "recipe";

const STARTER: Recipe = {
  title: "Pasta al pomodoro",
  skill_level: "Beginner",
  cooking_time: "25 min",
  ingredients: [
    { icon: "🍝", name: "Spaghetti", amount: "200 g" },
    { icon: "🍅", name: "Tomatoes", amount: "400 g" },
    { icon: "🧄", name: "Garlic", amount: "2 cloves" },
    { icon: "🫒", name: "Olive oil", amount: "3 tbsp" },
  ],
  instructions: ["Boil the pasta in salted water.", "Soften the garlic in the oil, add the tomatoes and simmer 10 minutes.", "Toss the pasta in the sauce."],
};

/** What the model adds, in turn, to a recipe that already has ingredients. */
const ADDITIONS = [
  { ingredient: { icon: "🌿", name: "Fresh basil", amount: "a handful" }, step: "Tear the basil over the dish just before serving." },
  { ingredient: { icon: "🧀", name: "Parmesan", amount: "40 g" }, step: "Grate the parmesan on top." },
  { ingredient: { icon: "🌶️", name: "Chili flakes", amount: "1 pinch" }, step: "Add the chili flakes with the garlic." },
  { ingredient: { icon: "🍋", name: "Lemon zest", amount: "1 lemon" }, step: "Finish with the lemon zest." },
];

function currentRecipe(req: Parameters<typeof contextValue>[0]): Recipe | undefined {
  const value = contextValue(req, CONTEXT_KEY);
  const parsed = RecipeSchema.safeParse(value === undefined ? undefined : parseObject(value));
  return parsed.success && parsed.data.ingredients.length > 0 ? parsed.data : undefined;
}

export function sharedStateFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: lastResultIs(TOOL) },
      response: (req) => {
        const args = ((answeredCalls(req).at(-1)!.args as { memory?: { recipe?: Partial<Recipe> } }).memory?.recipe ?? {}) as Partial<Recipe>;
        const added = args.ingredients?.at(-1)?.name;
        return {
          content: args.title
            ? `I started a recipe for you: ${args.title}. Edit anything in the panel, then ask me again.`
            : `I kept your changes and added ${added ?? "an ingredient"}; the recipe now has ${args.ingredients?.length ?? 0} ingredients.`,
        };
      },
    },
    {
      match: { predicate: (req) => offers(req, TOOL) && endsWithUser(req) },
      response: (req) => {
        const recipe = currentRecipe(req);
        if (!recipe) return { toolCalls: [toolCall(req, 0, TOOL, { memory: { recipe: STARTER } })] };
        const names = new Set(recipe.ingredients.map((i) => i.name.toLowerCase()));
        const next = ADDITIONS.find((a) => !names.has(a.ingredient.name.toLowerCase()));
        if (!next) return { content: "Your recipe already has everything I would add. Bon appétit!" };
        return {
          toolCalls: [
            toolCall(req, 0, TOOL, {
              memory: { recipe: { ingredients: [...recipe.ingredients, next.ingredient], instructions: [...recipe.instructions, next.step] } },
            }),
          ],
        };
      },
    },
  ];
}
