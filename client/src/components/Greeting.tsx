/**
 * An empty chat's greeting and suggestions, from the agent's definition (GET /api/agents/:id
 * `welcome`). A suggestion is sent as a typed message would be, and the greeting is gone once
 * the thread has a message. Rejected: CopilotKit's welcome screen, which it never shows for a
 * chat given a threadId (every chat here is), and its suggestion engine, which asks the model.
 */
import { useAgent, useCopilotKit } from "@copilotkit/react-core/v2";
import { useEffect, useState } from "react";
import { authHeaders } from "../api.ts";
import { useThreadChrome } from "../chrome-context.ts";

interface Welcome {
  greeting?: string;
  suggestions: string[];
}

/** Per agent, for the page's life: the definition does not change while the server runs. */
const cache = new Map<string, Promise<Welcome | null>>();

function welcomeOf(agentId: string): Promise<Welcome | null> {
  let known = cache.get(agentId);
  if (!known) {
    known = fetch(`/api/agents/${encodeURIComponent(agentId)}`, { headers: authHeaders() })
      .then(async (res) => (res.ok ? (((await res.json()) as { welcome?: Welcome }).welcome ?? null) : null))
      // No greeting is no loss: the chat works without one, so a failure is only logged.
      .catch((err: unknown) => {
        console.warn("could not load the agent's greeting", err);
        return null;
      });
    cache.set(agentId, known);
  }
  return known;
}

export function Greeting() {
  const { agentId, status, chrome, onSubmitted } = useThreadChrome();
  const { agent } = useAgent({ agentId });
  const { copilotkit } = useCopilotKit();
  const [welcome, setWelcome] = useState<Welcome | null>(null);
  useEffect(() => {
    let live = true;
    void welcomeOf(agentId).then((w) => live && setWelcome(w));
    return () => {
      live = false;
    };
  }, [agentId]);

  if (status !== "NEW" || agent.messages.length > 0 || !welcome || (!welcome.greeting && welcome.suggestions.length === 0)) return null;
  const send = (text: string) => {
    if (!chrome.inputEnabled || agent.isRunning) return;
    onSubmitted();
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
    // The chrome follows the run from the log; a refusal shows there, so it is only logged here.
    void copilotkit.runAgent({ agent }).catch((err: unknown) => console.warn("the suggestion's run failed to start", err));
  };
  return (
    <section className="greeting" data-testid="greeting" aria-label="Getting started">
      {welcome.greeting && <p className="greeting-text">{welcome.greeting}</p>}
      {welcome.suggestions.length > 0 && (
        <ul className="suggestions">
          {welcome.suggestions.map((s) => (
            <li key={s}>
              <button type="button" className="suggestion" data-testid="suggestion" disabled={!chrome.inputEnabled} onClick={() => send(s)}>
                {s}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
