/**
 * "‹ 1/2 ›" under a message where the thread's branches part (after a Regenerate, an edit, or a
 * message sent from a branch left behind), and the chat's message slots that draw it. What the
 * chat's messages need besides CopilotKit's props comes through ChatContext.
 */
import {
  CopilotChatAssistantMessage,
  type CopilotChatAssistantMessageProps,
  CopilotChatUserMessage,
  type CopilotChatUserMessageProps,
  type Message,
} from "@copilotkit/react-core/v2";
import { createContext, useContext, useEffect, useState } from "react";
import type { BranchView } from "../useBranches.ts";
import { MarkdownRenderer } from "./Markdown.tsx";
import { RunFailedNotice } from "./Problems.tsx";

export interface ChatMessages {
  branches: BranchView;
  /** True while a run is on its way: switching would fight the stream. */
  locked: boolean;
  /** null: the thread cannot take a run now (no Regenerate, no Edit). */
  onRegenerate: ((m: Message) => void) | null;
  onEdit: ((m: Message) => void) | null;
}

export const ChatContext = createContext<ChatMessages | null>(null);

function useChatMessages(): ChatMessages {
  const value = useContext(ChatContext);
  if (!value) throw new Error("the chat's messages must be drawn inside <ChatContext.Provider>.");
  return value;
}

export function BranchSwitch({ messageId }: { messageId: string }) {
  const { branches, locked } = useChatMessages();
  const alt = branches.at(messageId);
  if (!alt) return null;
  const { index, branches: to } = alt;
  return (
    <div className="branch-switch" data-testid="branch-switch" data-message-id={messageId}>
      <button type="button" aria-label="Previous branch" data-testid="branch-prev" disabled={locked || index === 0} onClick={() => branches.choose(to[index - 1]!)}>
        ‹
      </button>
      <span data-testid="branch-position">
        {index + 1}/{to.length}
      </span>
      <button type="button" aria-label="Next branch" data-testid="branch-next" disabled={locked || index === to.length - 1} onClick={() => branches.choose(to[index + 1]!)}>
        ›
      </button>
    </div>
  );
}

export function AssistantMessage(props: CopilotChatAssistantMessageProps) {
  const { onRegenerate } = useChatMessages();
  return (
    <>
      <CopilotChatAssistantMessage {...props} markdownRenderer={MarkdownRenderer as never} {...(onRegenerate ? { onRegenerate: () => onRegenerate(props.message as Message) } : {})} />
      <BranchSwitch messageId={props.message.id} />
      <RunFailedNotice messageId={props.message.id} />
    </>
  );
}

/**
 * A user message. Its toolbar (Copy, Edit) is CopilotKit's, shown there on hover only; here a tap
 * on the message shows it too (a phone has no hover), and a tap elsewhere hides it again; focus
 * shows it as well (styles.css), so a keyboard reaches Edit.
 */
export function UserMessage(props: CopilotChatUserMessageProps) {
  const { onEdit } = useChatMessages();
  const [revealed, setRevealed] = useRevealed(props.message.id);
  return (
    <>
      <CopilotChatUserMessage
        {...props}
        {...(onEdit ? { onEditMessage: ({ message }: { message: Message }) => onEdit(message) } : {})}
        data-revealed={revealed ? "true" : "false"}
        onClick={() => setRevealed(!revealed)}
      />
      <BranchSwitch messageId={props.message.id} />
      <RunFailedNotice messageId={props.message.id} />
    </>
  );
}

/** Whether a tap showed this message's toolbar; a press anywhere outside the message hides it. */
function useRevealed(messageId: string): [boolean, (revealed: boolean) => void] {
  const [revealed, setRevealed] = useState(false);
  useEffect(() => {
    if (!revealed) return;
    const onPress = (e: PointerEvent) => {
      const inside = (e.target as Element | null)?.closest?.(`[data-testid="copilot-user-message"][data-message-id="${CSS.escape(messageId)}"]`);
      if (!inside) setRevealed(false);
    };
    addEventListener("pointerdown", onPress);
    return () => removeEventListener("pointerdown", onPress);
  }, [revealed, messageId]);
  return [revealed, setRevealed];
}
