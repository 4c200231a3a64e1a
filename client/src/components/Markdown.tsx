/**
 * The assistant message's markdown: CopilotKit's own renderer (streamdown), drawn again once
 * KaTeX has arrived for a message with math (client/src/markdown/rehype-katex-lazy.ts), since
 * streamdown keeps a rendered block until its text changes. Its look in the app's palette, inline
 * code without backticks: markdown/markdown.css.
 */
import { CopilotChatAssistantMessage } from "@copilotkit/react-core/v2";
import { type ComponentProps, useSyncExternalStore } from "react";
import { katexLoaded, onKatexLoaded } from "../markdown/rehype-katex-lazy.ts";
import "../markdown/markdown.css";

type Props = ComponentProps<typeof CopilotChatAssistantMessage.MarkdownRenderer>;

export function MarkdownRenderer(props: Props) {
  const katex = useSyncExternalStore(onKatexLoaded, katexLoaded);
  return <CopilotChatAssistantMessage.MarkdownRenderer key={katex ? "katex" : "tex"} {...props} />;
}
