/** GET <mount>/agents: the agents this server hosts. */
import { Router } from "express";
import type { AgentRegistry } from "../../agents/define.ts";

export function agentRoutes({ agents }: { agents: AgentRegistry }): Router {
  const router = Router();
  router.get("/agents", (_req, res) => {
    res.json({
      agents: agents.list().map((a) => ({
        id: a.id,
        description: a.description,
        tools: a.tools.map((t) => ({ name: t.name, description: t.description })),
        maxTurns: a.maxTurns,
        doubleTexting: a.doubleTexting,
      })),
    });
  });
  return router;
}
