/** The agent's shared state as JSON, live: what the page's drawing of it is made from. */
import { useThreadAgent } from "../thread-agent.ts";

export function RawState({ open = false }: { open?: boolean }) {
  const agent = useThreadAgent();
  return (
    <details className="raw-state" open={open}>
      <summary>Shared state (JSON)</summary>
      <pre data-testid="raw-state">{JSON.stringify(agent.state ?? {}, null, 2)}</pre>
    </details>
  );
}
