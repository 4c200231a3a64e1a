/**
 * Dojo feature "tool-based generative UI": the model answers by calling a tool whose arguments
 * ARE the UI. `generate_haiku` is the page's render-only frontend tool: the page draws the haiku
 * card from the call's arguments (as they stream) and acknowledges it; the agent has no backend
 * tools of its own.
 */
import { defineAgent, type AgentDefinition } from "../define.ts";

export const TOOL_BASED_GENERATIVE_UI_ID = "tool_based_generative_ui";

export function toolBasedGenerativeUiAgent(): AgentDefinition {
  return defineAgent({
    id: TOOL_BASED_GENERATIVE_UI_ID,
    description: "Tool-based generative UI: the agent writes haiku through the page's generate_haiku tool, drawn as a card.",
    greeting: "Ask me for a haiku; it is drawn as a card.",
    suggestions: ["Write a haiku about the moon", "A haiku about a frog"],
    instructions:
      "You write haiku. Whatever the user asks about, answer with one haiku by calling the generate_haiku tool: " +
      "three lines in Japanese, the same three lines in English, and a CSS gradient that suits its mood. " +
      "Do not write the haiku in the chat; after the tool answers, say one short sentence.",
    maxTurns: 4,
  });
}
