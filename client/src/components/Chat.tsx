/**
 * The conversation: CopilotKit's v2 chat bound to the thread in the URL. The input follows the
 * status chrome (enabled only when the thread is WAITING or new), and CopilotKit's own stop
 * button is replaced by the header's Cancel, which is shown only while RUNNING.
 */
import { CopilotChat, CopilotChatInput, type CopilotChatInputProps, type Message } from "@copilotkit/react-core/v2";
import { useState } from "react";
import { useThreadChrome } from "../chrome-context.ts";
import { useSteering } from "./steering.ts";

function GatedInput(props: CopilotChatInputProps) {
  const { chrome, onSubmitted } = useThreadChrome();
  const enabled = chrome.inputEnabled;
  return (
    <div data-testid="chat-input" data-enabled={enabled ? "true" : "false"}>
      <CopilotChatInput
        {...props}
        isRunning={false}
        onStop={undefined}
        onSubmitMessage={(value) => {
          if (!enabled) return;
          onSubmitted();
          props.onSubmitMessage?.(value);
        }}
        textArea={{
          disabled: !enabled,
          placeholder: enabled ? "Message the agent…" : chrome.label,
        }}
        sendButton={enabled ? {} : { disabled: true }}
      />
    </div>
  );
}

/** The edit box for a user message: its text, changed, is sent in its place. */
function EditBox({ message, onSave, onCancel }: { message: Message; onSave: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState(typeof message.content === "string" ? message.content : "");
  return (
    <div className="edit-box" data-testid="edit-box">
      <textarea data-testid="edit-text" value={text} onChange={(e) => setText(e.target.value)} rows={3} />
      <div className="edit-actions">
        <button type="button" data-testid="edit-save" disabled={text.trim() === ""} onClick={() => onSave(text)}>
          Send edited message
        </button>
        <button type="button" data-testid="edit-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

export function Chat() {
  const { agentId, threadId, chrome } = useThreadChrome();
  const { regenerate, edit } = useSteering(agentId);
  const [editing, setEditing] = useState<Message | null>(null);
  // Steering starts a run: only when the thread could take a message (not while one runs).
  const steerable = chrome.inputEnabled;
  return (
    <div className="chat" data-testid="chat">
      <CopilotChat
        agentId={agentId}
        threadId={threadId}
        input={GatedInput as unknown as typeof CopilotChatInput}
        welcomeScreen={false}
        messageView={{
          reasoningMessage: { "data-testid": "reasoning-message" } as object,
          assistantMessage: (steerable ? { onRegenerate: (m: Message) => regenerate(m) } : {}) as object,
          userMessage: (steerable ? { onEditMessage: ({ message }: { message: Message }) => setEditing(message) } : {}) as object,
        }}
        labels={{ chatInputPlaceholder: "Ask anything…" }}
      />
      {editing && (
        <EditBox
          key={editing.id}
          message={editing}
          onCancel={() => setEditing(null)}
          onSave={(text) => {
            setEditing(null);
            edit(editing, text);
          }}
        />
      )}
    </div>
  );
}
