/**
 * The checks of a valid RunAgentInput against the agent that would run it, at admission, before
 * anything is written. No silent choices:
 * - a frontend tool (RunAgentInput.tools) named like one of the agent's backend tools is refused,
 *   naming both: the model sees one name, so one of the two would answer the other's calls.
 *   Rejected: keeping them apart by renaming one for the model (the client's renderers and
 *   follow-up runs know the tool by its name) and letting the backend one win (what happened
 *   before, silently).
 * - a media part of a user message that the agent's model cannot take (models/media-inputs.ts)
 *   is refused, naming the part by its path and the reason. Rejected: the text note the model
 *   layer writes in its place (models/from-agui.ts keeps it, for logs written before this check),
 *   which answered a request whose attachment never reached the model as if it had.
 */
import type { RunAgentInput } from "@ag-ui/core";
import type { AgentDefinition } from "../agents/define.ts";
import { mediaRefusal, MEDIA_KINDS, type MediaKind, type MediaPartView } from "../models/media-inputs.ts";
import type { Model } from "../models/model.ts";
import type { Issue } from "./errors.ts";

/** `modelOf` is asked only when a media part needs checking: most runs carry none. */
export function agentFitIssues(agent: AgentDefinition, modelOf: () => Model | null, input: RunAgentInput): Issue[] {
  const issues: Issue[] = [];
  const backend = new Set(agent.tools.map((t) => t.name));
  (input.tools ?? []).forEach((tool, i) => {
    if (backend.has(tool.name)) {
      issues.push({
        path: `tools.${i}.name`,
        message: `frontend tool "${tool.name}" has the name of agent "${agent.id}"'s backend tool "${tool.name}"; rename the frontend tool (the model could not tell the two apart)`,
      });
    }
  });
  let model: Model | null | undefined;
  input.messages.forEach((m, i) => {
    if (m.role !== "user" || typeof m.content === "string") return;
    m.content.forEach((part, k) => {
      if (!(MEDIA_KINDS as readonly string[]).includes(part.type)) return;
      if (model === undefined) model = modelOf();
      const inputs = model?.mediaInputs;
      if (!model || !inputs) return;
      const refusal = mediaRefusal(model.id, inputs, part as unknown as MediaPartView & { type: MediaKind });
      if (refusal) issues.push({ path: `messages.${i}.content.${k}`, message: `${part.type} part refused: ${refusal}` });
    });
  });
  return issues;
}
