/**
 * The feature demo pages, in the AG-UI dojo's order, each talking to its agent in
 * server/agents/demos; then subagents (AG-UI 1.0's, in the dojo's newer features) and the coding
 * agent's page.
 */
import { agenticChat } from "./agentic-chat.tsx";
import { agenticGenerativeUi } from "./agentic-generative-ui.tsx";
import { backendApprovals } from "./backend-approvals.tsx";
import { backendToolRendering } from "./backend-tool-rendering.tsx";
import { coding } from "./coding.tsx";
import type { DemoFeature } from "./feature.ts";
import { humanInTheLoop } from "./human-in-the-loop.tsx";
import { interrupt } from "./interrupt.tsx";
import { predictiveStateUpdates } from "./predictive-state-updates.tsx";
import { sharedState } from "./shared-state.tsx";
import { subagents } from "./subagents.tsx";
import { toolBasedGenerativeUi } from "./tool-based-generative-ui.tsx";

export const DEMOS: readonly DemoFeature[] = [
  agenticChat,
  backendToolRendering,
  humanInTheLoop,
  backendApprovals,
  interrupt,
  agenticGenerativeUi,
  toolBasedGenerativeUi,
  sharedState,
  predictiveStateUpdates,
  subagents,
  coding,
];

export function demoBySlug(slug: string | null): DemoFeature | undefined {
  return slug === null ? undefined : DEMOS.find((d) => d.slug === slug);
}
