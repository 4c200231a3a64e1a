/**
 * The app's API key (a server with API_KEYS): kept in localStorage, sent as a bearer token. A key
 * given in the address (`?apiKey=`) is stored and taken out of the address at once, so that it
 * is not left in the history, in bookmarks or in every link copied from the bar.
 *
 * A 401 from any /api call is reported here; the key form (components/KeyForm.tsx) listens and
 * asks for a key, saying whether none was sent or the one sent was refused. Rejected: a key in
 * sessionStorage, which every new tab would ask for again.
 */
const KEY = "threadline.apiKey";

export type KeyProblem = "missing" | "wrong";

export function storedKey(): string | null {
  return localStorage.getItem(KEY);
}

export function saveKey(key: string): void {
  localStorage.setItem(KEY, key);
}

/** Moves `?apiKey=` from the address into storage; call before anything reads or copies the address. */
export function takeKeyFromUrl(): void {
  const url = new URL(location.href);
  const key = url.searchParams.get("apiKey");
  if (key === null) return;
  if (key.trim() !== "") saveKey(key.trim());
  url.searchParams.delete("apiKey");
  history.replaceState(history.state, "", `${url.pathname}${url.search}${url.hash}`);
}

export function authHeaders(): Record<string, string> {
  const key = storedKey();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

const listeners = new Set<(problem: KeyProblem) => void>();

/** Called with what is wrong whenever the server refuses the key; returns the unsubscribe. */
export function onUnauthorized(listener: (problem: KeyProblem) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A request was answered 401: without a key, one is missing; with one, it is wrong. */
export function reportUnauthorized(): KeyProblem {
  const problem: KeyProblem = storedKey() ? "wrong" : "missing";
  for (const listener of listeners) listener(problem);
  return problem;
}
