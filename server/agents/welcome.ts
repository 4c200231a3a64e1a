/**
 * What a chat shows before its first message: the agent's greeting and the messages it suggests
 * (AgentInput.greeting / suggestions). Served by GET /api/agents(/:id); the bundled app shows
 * them in an empty thread and sends a suggestion when it is tapped. Bounded so that a definition
 * cannot make every page load heavy.
 */
import { z } from "zod";

export const MAX_SUGGESTIONS = 6;

export const WelcomeSchema = z.object({
  greeting: z.string().trim().min(1).max(500).optional(),
  suggestions: z.array(z.string().trim().min(1).max(200)).max(MAX_SUGGESTIONS).default([]),
});

export type Welcome = z.infer<typeof WelcomeSchema>;
