/** One AG-UI dojo feature as the app shows it: its agent, what it demonstrates, its page's parts. */
import type { ComponentType, ReactNode } from "react";

export interface DemoFeature {
  /** The page's address: /demos/<slug>. */
  slug: string;
  /** The server's agent id (server/agents/demos). */
  agentId: string;
  title: string;
  /** What the page shows, in a sentence or two. */
  summary: string;
  /** Messages the offline demo model has a script for. */
  prompts: string[];
  /** Wraps the page (inside the thread's context), for what its tools and panel share. */
  Provider?: ComponentType<{ children: ReactNode }>;
  /** Registers the page's frontend tools, renderers and context; renders nothing. */
  Tools?: ComponentType;
  /** The feature's own panel, above the workflow events. */
  Panel?: ComponentType;
}
