/**
 * The reasoning message's header, CopilotKit's own with its label in English (reasoning-label.ts:
 * a second's thought read "Thought for 1 seconds"). Rejected: a header of our own, which would
 * have to copy CopilotKit's toggle and chevron to look the same.
 */
import { CopilotChatReasoningMessage } from "@copilotkit/react-core/v2";
import type { ComponentProps } from "react";
import { singularSecond } from "./reasoning-label.ts";

type Props = ComponentProps<typeof CopilotChatReasoningMessage.Header>;

export function ReasoningHeader(props: Props) {
  return <CopilotChatReasoningMessage.Header {...props} label={singularSecond(props.label)} />;
}
