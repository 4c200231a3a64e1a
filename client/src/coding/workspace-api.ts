/** The thread's workspace as the server lists it (GET /api/threads/:id/workspace and /workspace/file). */
import { authHeaders } from "../api.ts";

export interface WorkspaceFile {
  path: string;
  size: number;
  modifiedAt: string;
  fileType: string;
}

const base = (threadId: string) => `/api/threads/${encodeURIComponent(threadId)}/workspace`;

/** [] when the thread has no workspace yet (404). */
export async function listWorkspace(threadId: string, signal?: AbortSignal): Promise<WorkspaceFile[]> {
  const res = await fetch(base(threadId), { headers: authHeaders(), signal });
  if (res.status === 404) return [];
  if (!res.ok) throw new Error(`The workspace could not be listed: ${res.status} ${res.statusText}`);
  const body = (await res.json()) as { files?: WorkspaceFile[] };
  return [...(body.files ?? [])].sort((a, b) => a.path.localeCompare(b.path));
}

export async function readWorkspaceFile(threadId: string, path: string, signal?: AbortSignal): Promise<string> {
  const res = await fetch(`${base(threadId)}/file?path=${encodeURIComponent(path)}`, { headers: authHeaders(), signal });
  if (!res.ok) throw new Error(`${path} could not be read: ${res.status} ${res.statusText}`);
  return res.text();
}
