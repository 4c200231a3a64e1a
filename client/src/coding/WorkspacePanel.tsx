/**
 * The thread's workspace: the files the agent wrote, listed by the server (so a reload shows
 * them), listed again at every artifact event and when a run ends; a click opens a file, and an
 * open file reloads when the agent writes it again.
 */
import { useEffect, useState } from "react";
import { useThreadChrome } from "../chrome-context.ts";
import { settled } from "../status.ts";
import { useCodingEvents } from "./CodingEvents.tsx";
import { type CodingFold, formatSize } from "./streams.ts";
import { listWorkspace, readWorkspaceFile, type WorkspaceFile } from "./workspace-api.ts";

type Open = { path: string; text?: string; error?: string };

export function WorkspacePanel() {
  const { threadId, detail, status } = useThreadChrome();
  const { artifacts, artifactCount } = useCodingEvents();
  // The thread exists on the server once its row does; before that there is nothing to list.
  const exists = detail !== null;
  // Finished write and edit calls, as the thread's row counts them: a listing does not wait
  // for an artifact event that a dropped stream lost.
  const written = Object.values(detail?.toolCalls ?? {}).filter((c) => (c.name === "write" || c.name === "edit") && c.status !== "running").length;
  // What makes a listing stale: an artifact event, the run's end, a write the row counts.
  const { files, error } = useWorkspaceFiles(threadId, exists, `${artifactCount}:${settled(status)}:${written}`);
  const [open, setOpen] = useOpenFile(threadId, artifacts, `${artifactCount}:${written}`);

  const touched = new Set(Object.values(artifacts).map((a) => a.path));
  return (
    <section className="panel workspace" data-testid="workspace-panel" data-count={files.length}>
      <h2>
        Workspace <span className="muted small">{files.length === 1 ? "1 file" : `${files.length} files`}</span>
      </h2>
      {error && <p className="error-text">{error}</p>}
      {files.length === 0 && !error && <p className="muted">No files yet. The files the agent writes appear here.</p>}
      <ul className="workspace-files">
        {files.map((f) => (
          <li key={f.path}>
            <button type="button"
              className={`workspace-file${open?.path === f.path ? " open" : ""}`}
              data-testid="workspace-file"
              data-path={f.path}
              onClick={() => setOpen(open?.path === f.path ? null : { path: f.path })}
            >
              <span className="file-type">{f.fileType || "file"}</span>
              <span className="file-name">{f.path}</span>
              {touched.has(f.path) && <span className="dot-new" title="Written in this session" />}
              <span className="muted small">{formatSize(f.size)}</span>
            </button>
          </li>
        ))}
      </ul>
      {open && <FileViewer open={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

/** The workspace's files as the server lists them, listed again whenever `reloadKey` changes. */
function useWorkspaceFiles(threadId: string, exists: boolean, reloadKey: string) {
  const [files, setFiles] = useState<WorkspaceFile[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setFiles([]);
    setError(null);
  }, [threadId]);
  useEffect(() => {
    if (!exists) return;
    const aborter = new AbortController();
    listWorkspace(threadId, aborter.signal)
      .then((f) => {
        setFiles(f);
        setError(null);
      })
      .catch((e: unknown) => {
        if (!aborter.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => aborter.abort();
  }, [threadId, exists, reloadKey]);
  return { files, error };
}

/** The file the user opened, read from the server, and read again when `reloadKey` changes or it is written. */
function useOpenFile(threadId: string, artifacts: CodingFold["artifacts"], reloadKey: string): [Open | null, (open: Open | null) => void] {
  const [open, setOpen] = useState<Open | null>(null);
  useEffect(() => setOpen(null), [threadId]);
  // The last artifact of the open file: a new write reloads it.
  const lastWrite = Object.values(artifacts).filter((a) => a.path === open?.path).length;
  const openPath = open?.path;
  useEffect(() => {
    if (!openPath) return;
    const aborter = new AbortController();
    readWorkspaceFile(threadId, openPath, aborter.signal)
      .then((text) => setOpen((o) => (o?.path === openPath ? { path: openPath, text } : o)))
      .catch((e: unknown) => {
        if (!aborter.signal.aborted) setOpen((o) => (o?.path === openPath ? { path: openPath, error: e instanceof Error ? e.message : String(e) } : o));
      });
    return () => aborter.abort();
  }, [threadId, openPath, lastWrite, reloadKey]);
  return [open, setOpen];
}

function FileViewer({ open, onClose }: { open: Open; onClose: () => void }) {
  return (
    <div className="workspace-viewer" data-testid="workspace-viewer" data-path={open.path}>
      <div className="viewer-head">
        <code>{open.path}</code>
        <button type="button" className="icon-btn" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {open.error ? (
        <p className="error-text">{open.error}</p>
      ) : open.text === undefined ? (
        <p className="muted small">Loading…</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex lint/a11y/useSemanticElements: a scrolling region is reached by Tab to scroll it by keyboard (WCAG 2.1.1).
        <pre className="viewer-text" data-testid="workspace-file-text" tabIndex={0} role="region" aria-label={`Contents of ${open.path}`}>
          {open.text}
        </pre>
      )}
    </div>
  );
}
