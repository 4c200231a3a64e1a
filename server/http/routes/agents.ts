/**
 * GET <mount>/agents and GET <mount>/agents/:agentId: the agents this server hosts, with their
 * AG-UI capabilities; the list also says what a message may attach (media-parts.ts).
 */
import { Router } from "express";
import { agentCapabilities } from "../../agents/capabilities.ts";
import type { AgentDefinition, AgentRegistry } from "../../agents/define.ts";
import type { Engine } from "../../engine/engine.ts";
import { sendError } from "../errors.ts";
import type { AttachmentLimits } from "../../../protocol/attachments.ts";

export function agentRoutes({ agents, engine, attachments }: { agents: AgentRegistry; engine: Pick<Engine, "modelIfBuilt">; attachments: AttachmentLimits }): Router {
  const router = Router();
  const describe = (a: AgentDefinition) => ({
    id: a.id,
    description: a.description,
    tools: a.tools.map((t) => ({ name: t.name, description: t.description })),
    maxTurns: a.maxTurns,
    doubleTexting: a.doubleTexting,
    welcome: a.welcome,
    capabilities: agentCapabilities(a, engine.modelIfBuilt(a)),
  });
  router.get("/agents", (_req, res) => {
    res.json({ agents: agents.list().map(describe), attachments });
  });
  router.get("/agents/:agentId", (req, res) => {
    const agent = agents.get(req.params.agentId);
    if (!agent) {
      return sendError(res, 404, "AGENT_NOT_FOUND", `There is no agent "${req.params.agentId}". GET ${req.baseUrl}/agents lists the agents this server hosts.`, {
        agents: agents.list().map((a) => a.id),
      });
    }
    res.json(describe(agent));
  });
  return router;
}
