/**
 * Dojo feature "agentic chat": a plain conversation in which the model may call whatever tools
 * the page brings. The app's page offers `change_background`, so "make the background blue"
 * changes the page; the agent itself has no backend tools.
 */
import { defineAgent, type AgentDefinition } from "../define.ts";

export const AGENTIC_CHAT_ID = "agentic_chat";

export function agenticChatAgent(): AgentDefinition {
  return defineAgent({
    id: AGENTIC_CHAT_ID,
    description: "Agentic chat: a conversation that can call the page's own tools (change_background).",
    greeting: "Hi! I can chat and call this page's own tools.",
    suggestions: ["Change the background to teal", "Hello!"],
    instructions:
      "You are a friendly assistant in a chat. When the user asks to change the page's background or colours, " +
      "call the change_background tool the page offers. Otherwise just answer, briefly.",
    maxTurns: 4,
  });
}
