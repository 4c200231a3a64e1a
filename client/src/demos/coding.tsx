/**
 * The coding agent (agent id "coding"): it reads, writes and edits files in the thread's
 * workspace and runs commands there. Its page draws bash/run as terminals fed by the CUSTOM
 * "terminal" events, read/write as file cards, edit as a diff, and lists the workspace.
 */
import { CodingCards } from "../coding/CodingCards.tsx";
import { CodingEventsProvider } from "../coding/CodingEvents.tsx";
import { WorkspacePanel } from "../coding/WorkspacePanel.tsx";
import type { DemoFeature } from "./feature.ts";

export const coding: DemoFeature = {
  slug: "coding",
  agentId: "coding",
  title: "Coding agent",
  summary:
    "Files and commands in the thread's own workspace: bash and run stream into a terminal card, write and read show the file, edit shows its diff, and the panel lists the workspace.",
  prompts: ["Write hello.py, run it, then change the greeting and run it again"],
  Provider: CodingEventsProvider,
  Tools: CodingCards,
  Panel: WorkspacePanel,
};
