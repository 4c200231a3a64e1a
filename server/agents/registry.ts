/** The agents one server hosts, by id: two with one id are refused where they are given. */
import { type AgentDefinition, AgentDefinitionError } from "./define.ts";

export class AgentRegistry {
  readonly #agents = new Map<string, AgentDefinition>();

  constructor(agents: AgentDefinition[]) {
    for (const a of agents) {
      if (this.#agents.has(a.id)) throw new AgentDefinitionError(`Two agents have the id "${a.id}".`);
      this.#agents.set(a.id, a);
    }
  }

  get(id: string): AgentDefinition | undefined {
    return this.#agents.get(id);
  }

  list(): AgentDefinition[] {
    return [...this.#agents.values()];
  }
}
