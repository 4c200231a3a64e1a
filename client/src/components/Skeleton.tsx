/**
 * The page before it can be used: the shapes of the top bar, the threads column and the chat,
 * and "Loading…". index.html has the same markup, so the first paint is this rather than a blank
 * page, and the app keeps it until the agents are listed (KeyForm.tsx); the chat column keeps its
 * own part until CopilotKit's runtime has answered (App.tsx).
 */
export function AppSkeleton() {
  return (
    <div className="skeleton" data-testid="skeleton" role="status" aria-label="Loading Threadline">
      <div className="skeleton-top" />
      <div className="skeleton-side" aria-hidden="true">
        <div className="skeleton-block skeleton-line" />
        <div className="skeleton-block skeleton-line short" />
      </div>
      <div className="skeleton-chat">
        <ChatSkeletonParts />
      </div>
    </div>
  );
}

export function ChatSkeleton() {
  return (
    <div className="chat-skeleton" data-testid="chat-skeleton" role="status" aria-label="Loading the conversation">
      <ChatSkeletonParts />
    </div>
  );
}

function ChatSkeletonParts() {
  return (
    <>
      <div className="skeleton-block skeleton-line" aria-hidden="true" />
      <div className="skeleton-block skeleton-line short" aria-hidden="true" />
      <p className="skeleton-note">Loading…</p>
      <div className="skeleton-block skeleton-input" aria-hidden="true" />
    </>
  );
}
