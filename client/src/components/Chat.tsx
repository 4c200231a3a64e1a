/**
 * The conversation: CopilotKit's v2 chat bound to the thread in the URL. The input follows the
 * status chrome (enabled only when the thread is WAITING or new); while a run goes, its send
 * button is the Stop button (the durable cancel), and Escape stops it too. After a run the focus
 * is back in the input.
 *
 * The chat follows the thread wherever it is changed (catch-up.ts), shows the branch the person
 * chose ("‹ 1/2 ›", useBranches.ts), and keeps a message the server refused as stale for sending
 * again (Unsent.tsx).
 */
import { CopilotChat, CopilotChatInput, type CopilotChatInputProps, CopilotChatView, type Message, useAgent, useCopilotKit } from "@copilotkit/react-core/v2";
import { createContext, useContext, useEffect, useMemo, useRef, useState } from "react";
import { useAgentBusy, useAgentSettledOnce } from "../agent-busy.ts";
import { ImageAttachmentsContext, useImageAttachments, useImageAttachmentsContext } from "../attachments.ts";
import { catchUpNow, useCatchUp } from "../catch-up.ts";
import { useThreadChrome } from "../chrome-context.ts";
import type { ChromeStatus } from "../status.ts";
import { useSubagents } from "../subagents.ts";
import { useBranches } from "../useBranches.ts";
import { AssistantMessage, ChatContext, type ChatMessages, UserMessage } from "./BranchSwitch.tsx";
import { Greeting } from "./Greeting.tsx";
import { RefusedNotice, useRefusedRun, useResend } from "./Problems.tsx";
import { ReasoningHeader } from "./ReasoningHeader.tsx";
import { FORK, useSteering } from "./steering.ts";
import { UnsentNotice, useUnsent } from "./Unsent.tsx";

/** How the input sends: CopilotKit's own way, or from a branch left behind (a deliberate fork). */
const SendContext = createContext<((text: string) => void) | null>(null);

/** The id the "Skip to the message box" link and the drawers send the focus to. */
export const MESSAGE_INPUT_ID = "message-input";

export function focusMessageInput(): void {
  document.getElementById(MESSAGE_INPUT_ID)?.focus();
}

/**
 * Puts the focus back in the input when a run ends, unless the user has since put it somewhere
 * else (a task field, a thread). Not on touch screens, where a focused input raises the keyboard
 * over the answer the user is about to read.
 */
function useFocusAfterRun(box: React.RefObject<HTMLDivElement | null>, enabled: boolean, status: ChromeStatus): void {
  const before = useRef({ enabled, status });
  useEffect(() => {
    const was = before.current;
    before.current = { enabled, status };
    if (!enabled || was.enabled || was.status === "LOADING") return;
    const active = document.activeElement;
    if (active && active !== document.body && !box.current?.contains(active)) return;
    if (matchMedia("(pointer: coarse)").matches) return;
    box.current?.querySelector("textarea")?.focus();
  }, [enabled, status]);
}

/**
 * Escape stops the run, from anywhere on the page, unless something nearer has a use for it: an
 * open drawer (it closes), the edit box, a rename or any other field being typed in.
 */
function useEscapeStops(running: boolean, onStop: () => void): void {
  useEffect(() => {
    if (!running) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented) return;
      if (document.querySelector('[data-testid="app"]:not([data-drawer=""])')) return;
      const target = e.target as HTMLElement | null;
      if (target && target.id !== MESSAGE_INPUT_ID && target.closest("input, textarea, select, [role='dialog']")) return;
      onStop();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [running, onStop]);
}

type ChatViewProps = React.ComponentProps<typeof CopilotChatView>;

/**
 * CopilotKit's chat view, with the images past the server's count taken out again
 * (attachments.ts), and without a subagent's messages: they are drawn in the card of the call
 * that ran it (SubagentCard.tsx), never as turns (subagents.ts says which they are).
 */
function LimitedChatView(props: ChatViewProps) {
  const images = useImageAttachmentsContext();
  const subagents = useSubagents();
  const { attachments, onRemoveAttachment, messages } = props;
  useEffect(() => {
    if (attachments && onRemoveAttachment) images?.changed(attachments, onRemoveAttachment);
  }, [attachments, onRemoveAttachment, images]);
  const turns = useMemo(() => messages?.filter((m) => !subagents.isChild(m.id)), [messages, subagents]);
  return <CopilotChatView {...props} {...(turns && { messages: turns })} />;
}

/** Why the last image was not attached, just above the input, where the person just tried. */
function AttachProblem() {
  const images = useImageAttachmentsContext();
  if (!images?.problem) return null;
  return (
    <div className="attach-problem" data-testid="attach-problem" role="alert">
      <span>{images.problem}</span>
      <button type="button" className="link" onClick={images.dismiss}>
        Dismiss
      </button>
    </div>
  );
}

function GatedInput(props: CopilotChatInputProps) {
  const { chrome, status, onSubmitted, onCancel } = useThreadChrome();
  const sendElsewhere = useContext(SendContext);
  const enabled = chrome.inputEnabled;
  const running = chrome.cancelVisible;
  const box = useRef<HTMLDivElement>(null);
  useFocusAfterRun(box, enabled, status);
  useEscapeStops(running, onCancel);
  return (
    <div ref={box} className="chat-input" data-testid="chat-input" data-enabled={enabled ? "true" : "false"}>
      <CopilotChatInput
        {...props}
        isRunning={running}
        onStop={running ? onCancel : undefined}
        onSubmitMessage={(value) => {
          if (!enabled) return;
          onSubmitted();
          if (sendElsewhere) sendElsewhere(value);
          else props.onSubmitMessage?.(value);
        }}
        textArea={{
          id: MESSAGE_INPUT_ID,
          "aria-label": "Message",
          disabled: !enabled,
          placeholder: enabled ? "Message the agent…" : chrome.label,
        }}
        sendButton={
          running
            ? ({ "aria-label": "Stop the run", title: "Stop the run (Esc)", "aria-keyshortcuts": "Escape", "data-testid": "cancel-button", className: "stop-button" } as object)
            : { "aria-label": "Send the message", title: "Send", ...(enabled ? {} : { disabled: true }) }
        }
        addMenuButton={{ "aria-label": "Attach images", "data-testid": "attach-button" } as object}
      />
    </div>
  );
}

/** The edit box for a user message: its text, changed, is sent in its place. */
function EditBox({ message, onSave, onCancel }: { message: Message; onSave: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState(typeof message.content === "string" ? message.content : "");
  const save = () => text.trim() !== "" && onSave(text);
  return (
    <div className="edit-box" data-testid="edit-box" role="dialog" aria-label="Edit your message">
      <label className="edit-label" htmlFor="edit-text">
        Edit your message; sending it replaces it and what followed
      </label>
      <textarea
        id="edit-text"
        data-testid="edit-text"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") onCancel();
          if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) save();
        }}
        rows={3}
        // biome-ignore lint/a11y/noAutofocus: the box opens on the user's own click on Edit; its text is what they came to change.
        autoFocus
      />
      <div className="edit-actions">
        <button type="button" className="btn" data-testid="edit-cancel" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" data-testid="edit-save" disabled={text.trim() === ""} onClick={save}>
          Send edited message
        </button>
      </div>
    </div>
  );
}

export function Chat() {
  const { agentId, threadId, chrome, detail, status, onSubmitted } = useThreadChrome();
  const { agent } = useAgent({ agentId });
  const { copilotkit } = useCopilotKit();
  const busy = useAgentBusy(agent);
  const opened = useAgentSettledOnce(agent, threadId);
  const branches = useBranches(threadId, detail, agent, busy, opened, () => void catchUpNow(agent, copilotkit).catch((err: unknown) => console.warn("could not show the current branch", err)));
  // A run this page submitted is on its way (PENDING): it brings the thread up to date itself.
  useCatchUp(agent, copilotkit, detail, busy, opened && !branches.elsewhere && status !== "PENDING");
  const unsent = useUnsent(agent, busy, onSubmitted);
  const [refused, setRefused] = useRefusedRun(agent);
  const resend = useResend(agent, onSubmitted);
  const { regenerate, edit } = useSteering(agentId, branches.leave);
  const [editing, setEditing] = useState<Message | null>(null);
  const images = useImageAttachments();
  // Steering starts a run: only when the thread could take a message (not while one runs).
  const steerable = chrome.inputEnabled;
  const messages = useMemo<ChatMessages>(
    () => ({ branches, locked: busy || !steerable, onRegenerate: steerable ? regenerate : null, onEdit: steerable ? setEditing : null }),
    [branches, busy, steerable, regenerate],
  );
  const sendElsewhere = branches.elsewhere
    ? (text: string) => {
        branches.leave();
        agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
        void copilotkit.runAgent({ agent, forwardedProps: FORK }).catch((err: unknown) => console.warn("could not send from this branch", err));
      }
    : null;
  return (
    <div className="chat" data-testid="chat" data-branch-elsewhere={branches.elsewhere ? "true" : "false"}>
      <ChatContext.Provider value={messages}>
        <SendContext.Provider value={sendElsewhere}>
          <ImageAttachmentsContext.Provider value={images}>
          <CopilotChat
            agentId={agentId}
            threadId={threadId}
            input={GatedInput as unknown as typeof CopilotChatInput}
            chatView={LimitedChatView as unknown as typeof CopilotChatView}
            {...(images.config ? { attachments: images.config } : {})}
            welcomeScreen={false}
            messageView={{
              reasoningMessage: { "data-testid": "reasoning-message", header: ReasoningHeader } as object,
              assistantMessage: AssistantMessage as never,
              userMessage: UserMessage as never,
            }}
            labels={{ chatInputPlaceholder: "Ask anything…", chatInputToolbarAddButtonLabel: "Attach images" }}
          />
          </ImageAttachmentsContext.Provider>
        </SendContext.Provider>
      </ChatContext.Provider>
      <Greeting />
      <ImageAttachmentsContext.Provider value={images}>
        <AttachProblem />
      </ImageAttachmentsContext.Provider>
      {unsent && <UnsentNotice unsent={unsent} canSend={chrome.inputEnabled} />}
      {refused && (
        <RefusedNotice
          refused={refused}
          canSend={chrome.inputEnabled}
          onResend={() => {
            setRefused(null);
            resend(refused.text);
          }}
          onDismiss={() => {
            setRefused(null);
            focusMessageInput();
          }}
        />
      )}
      {editing && (
        <EditBox
          key={editing.id}
          message={editing}
          onCancel={() => {
            setEditing(null);
            focusMessageInput();
          }}
          onSave={(text) => {
            setEditing(null);
            edit(editing, text);
          }}
        />
      )}
    </div>
  );
}
