/**
 * Stands in for `rehype-raw` inside streamdown (client/markdown-shims.ts): HTML in a message is
 * shown as the text it is instead of being parsed. With rehype-raw, a model's "use the <model>
 * flag" became an unknown <model> element that the sanitizer then dropped, so the words vanished.
 * An agent's answer is text, not a page; showing tags literally is also the safe reading.
 * Rejected: keeping rehype-raw and escaping unknown tags beforehand (a second HTML parser's
 * worth of rules, and parse5 on every first load).
 */
import type { Parent, Root, RootContent, Text } from "hast";

function textFromRaw(parent: Root | Parent): void {
  parent.children = parent.children.map((child: RootContent) => {
    if ((child as { type: string }).type === "raw") return { type: "text", value: (child as unknown as { value: string }).value } satisfies Text;
    if ("children" in child) textFromRaw(child);
    return child;
  }) as typeof parent.children;
}

export default function rehypeRawAsText() {
  return (tree: Root) => textFromRaw(tree);
}
