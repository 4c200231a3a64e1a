/**
 * What a tool's return value becomes in the conversation. Most tools return data: it is kept as
 * JSON text. A tool that returns media returns it the way MCP tools do, `{ content: [{ type:
 * "text", text } | { type: "image", data, mimeType }] }`: the parts are kept as AG-UI content parts
 * (text and images), so the log holds the image, clients get the text, and models that take
 * images are shown it (models/from-agui.ts). Rejected: a Threadline-only wrapper type, which MCP
 * tools proxied through defineTool would have to be rewrapped for.
 */
import type { ContentPart } from "@ag-ui/core";
import { z } from "zod";
import { storableJsonMember, toStorableText } from "../store/storable-text.ts";

const McpContentSchema = z.object({
  content: z
    .array(
      z.discriminatedUnion("type", [
        z.object({ type: z.literal("text"), text: z.string() }),
        z.object({ type: z.literal("image"), data: z.string().min(1), mimeType: z.string().regex(/^image\//) }),
      ]),
    )
    .min(1),
});

/**
 * The tool message's content for a tool's return value, every string in it made storable
 * (store/storable-text.ts): a tool may return whatever it read, NUL and broken pairs included.
 */
export function toolResultContent(value: unknown): string | ContentPart[] {
  if (typeof value === "string") return toStorableText(value);
  const media = McpContentSchema.safeParse(value);
  if (media.success && media.data.content.some((p) => p.type === "image")) {
    return media.data.content.map((p): ContentPart =>
      p.type === "text"
        ? { type: "text", text: toStorableText(p.text) }
        : { type: "image", source: { type: "data", value: toStorableText(p.data), mimeType: toStorableText(p.mimeType) } },
    );
  }
  return JSON.stringify(value ?? null, storableJsonMember);
}
