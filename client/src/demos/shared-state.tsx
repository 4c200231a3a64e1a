/**
 * Shared state: a recipe both sides edit. The user's edits go into the agent's state (sent with
 * the next run) and, as application context, to the model; the agent's updateWorkingMemory patches
 * arrive as STATE_DELTA and show here at once. Editing is off while a run is going, so an edit
 * never races the agent's.
 */
import { useAgentContext } from "@copilotkit/react-core/v2";
import { z } from "zod";
import { useThreadChrome } from "../chrome-context.ts";
import { useThreadAgent } from "../thread-agent.ts";
import { AddForm, RemoveButton } from "../components/ListEditing.tsx";
import type { DemoFeature } from "./feature.ts";
import { RawState } from "./RawState.tsx";

const SKILLS = ["Beginner", "Intermediate", "Advanced"] as const;
const Ingredient = z.object({ icon: z.string(), name: z.string(), amount: z.string() });
const Recipe = z.object({
  title: z.string(),
  skill_level: z.enum(SKILLS),
  cooking_time: z.string(),
  ingredients: z.array(Ingredient),
  instructions: z.array(z.string()),
});
type Recipe = z.infer<typeof Recipe>;

const EMPTY: Recipe = { title: "", skill_level: "Beginner", cooking_time: "", ingredients: [], instructions: [] };

function useRecipe(): [Recipe, (next: Recipe) => void] {
  const agent = useThreadAgent();
  const state = (agent.state ?? {}) as Record<string, unknown>;
  const parsed = Recipe.safeParse(state.recipe);
  return [parsed.success ? parsed.data : EMPTY, (recipe) => agent.setState({ ...state, recipe })];
}

function Tools() {
  const [recipe] = useRecipe();
  // The model reads the recipe here; the server's copy of the state arrives with the run too.
  useAgentContext({ description: "The current recipe (state.recipe), with the user's edits", value: recipe });
  return null;
}

function Panel() {
  const { chrome } = useThreadChrome();
  const editable = chrome.inputEnabled;
  const [recipe, setRecipe] = useRecipe();
  const set = (patch: Partial<Recipe>) => setRecipe({ ...recipe, ...patch });

  return (
    <section className="panel recipe" data-testid="recipe">
      <h2>Recipe (shared state)</h2>
      <input
        className="recipe-title"
        data-testid="recipe-title"
        value={recipe.title}
        placeholder="Untitled recipe"
        disabled={!editable}
        onChange={(e) => set({ title: e.target.value })}
      />
      <div className="recipe-meta">
        <select data-testid="recipe-skill" aria-label="Skill level" value={recipe.skill_level} disabled={!editable} onChange={(e) => set({ skill_level: e.target.value as Recipe["skill_level"] })}>
          {SKILLS.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <input data-testid="recipe-time" value={recipe.cooking_time} placeholder="Cooking time" disabled={!editable} onChange={(e) => set({ cooking_time: e.target.value })} />
      </div>

      <h3>Ingredients</h3>
      <ul className="tasks" data-testid="ingredients">
        {recipe.ingredients.map((item, i) => (
          <li key={`${item.name}-${i}`} data-testid="ingredient">
            <span>
              {item.icon} {item.name} <span className="muted">{item.amount}</span>
            </span>
            <RemoveButton disabled={!editable} onRemove={() => set({ ingredients: recipe.ingredients.filter((_, j) => j !== i) })} />
          </li>
        ))}
      </ul>
      <AddForm
        placeholder="Add an ingredient…"
        disabled={!editable}
        inputTestId="ingredient-input"
        buttonTestId="ingredient-add"
        onAdd={(name) => set({ ingredients: [...recipe.ingredients, { icon: "🥄", name, amount: "to taste" }] })}
      />

      <h3>Instructions</h3>
      <ol className="plan-steps" data-testid="instructions">
        {recipe.instructions.map((text, i) => (
          <li key={i} data-testid="instruction">
            {text}
          </li>
        ))}
      </ol>
      <AddForm placeholder="Add a step…" disabled={!editable} inputTestId="instruction-input" onAdd={(text) => set({ instructions: [...recipe.instructions, text] })} />
      <RawState />
    </section>
  );
}

export const sharedState: DemoFeature = {
  slug: "shared-state",
  agentId: "shared_state",
  title: "Shared state",
  summary: "A recipe that you edit here and the agent edits with updateWorkingMemory: your edits reach the agent with the next run, its edits stream back as state deltas.",
  prompts: ["Suggest a recipe", "Improve it"],
  Tools,
  Panel,
};
