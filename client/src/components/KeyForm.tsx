/**
 * The API key, asked for in a form: before the app starts when the server refuses to list its
 * agents, and over the running app when any later request is refused (the app stays mounted
 * underneath, so a message being typed is kept). It says which: no key, or a key that was refused.
 */
import { type FormEvent, type ReactNode, useCallback, useEffect, useState } from "react";
import { type AgentDirectory, listAgents, UnauthorizedError } from "../api.ts";
import { type KeyProblem, onUnauthorized, saveKey } from "../keys.ts";
import { AppSkeleton } from "./Skeleton.tsx";

const SAYS: Record<KeyProblem, string> = {
  missing: "This server needs an API key. Enter one of the keys in its API_KEYS setting.",
  wrong: "The server refused the API key this app has. Check it against the server's API_KEYS setting and enter it again.",
};

export function KeyGate({ children }: { children: (directory: AgentDirectory) => ReactNode }) {
  const [agents, setAgents] = useState<AgentDirectory | null>(null);
  const [problem, setProblem] = useState<KeyProblem | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const load = useCallback(() => {
    setFailure(null);
    listAgents()
      .then((list) => {
        setAgents(list);
        setProblem(null);
      })
      .catch((err: unknown) => {
        if (err instanceof UnauthorizedError) setProblem(err.problem);
        else setFailure(err instanceof Error ? err.message : String(err));
      });
  }, []);
  useEffect(() => {
    load();
    return onUnauthorized(setProblem);
  }, [load]);

  return (
    <>
      {agents && children(agents)}
      {!agents && !problem && !failure && <AppSkeleton />}
      {failure && !problem && (
        <div className="key-gate" data-testid="load-failure">
          <p>The server could not list its agents: {failure}</p>
          <button type="button" className="btn" onClick={load}>
            Try again
          </button>
        </div>
      )}
      {problem && (
        <KeyForm
          problem={problem}
          overlay={agents !== null}
          onKey={(key) => {
            saveKey(key);
            load();
          }}
        />
      )}
    </>
  );
}

function KeyForm({ problem, overlay, onKey }: { problem: KeyProblem; overlay: boolean; onKey(key: string): void }) {
  const [key, setKey] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (key.trim() !== "") onKey(key.trim());
  };
  return (
    <div className={overlay ? "key-gate key-gate-overlay" : "key-gate"}>
      <form className="key-form" data-testid="key-form" data-problem={problem} onSubmit={submit}>
        <h2>API key</h2>
        <p data-testid="key-problem" role="alert">
          {SAYS[problem]}
        </p>
        <input
          type="password"
          data-testid="key-input"
          aria-label="API key"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
        />
        <button type="submit" className="btn btn-primary" data-testid="key-submit" disabled={key.trim() === ""}>
          Use this key
        </button>
      </form>
    </div>
  );
}
