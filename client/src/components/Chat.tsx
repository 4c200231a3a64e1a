/**
 * The conversation: CopilotKit's v2 chat bound to the thread in the URL. The input follows the
 * status chrome (enabled only when the thread is WAITING or new), and CopilotKit's own stop
 * button is replaced by the header's Cancel, which is shown only while RUNNING.
 */
import { CopilotChat, CopilotChatInput, type CopilotChatInputProps } from "@copilotkit/react-core/v2";
import { useThreadChrome } from "../chrome-context.ts";

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

export function Chat() {
  const { threadId } = useThreadChrome();
  return (
    <div className="chat" data-testid="chat">
      <CopilotChat
        threadId={threadId}
        input={GatedInput as unknown as typeof CopilotChatInput}
        welcomeScreen={false}
        messageView={{ reasoningMessage: { "data-testid": "reasoning-message" } as object }}
        labels={{ chatInputPlaceholder: "Ask anything…" }}
      />
    </div>
  );
}
