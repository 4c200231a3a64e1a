/**
 * The images a tool returned, drawn in its card. The app's runs go through /api/copilotkit, whose
 * client speaks the frames before AG-UI 1.0: there a tool result is its text parts only. The thread
 * view (GET /api/threads/:id, already read for the card's status) keeps the tool message as the
 * log does, content parts included, so the card reads the images there. Rejected: asking the
 * runtime for 1.0 frames (CopilotKit 1.74/1.75's client rejects content-part results).
 */

/** At most this many images per card: a tool returning hundreds would bury the chat. */
export const MAX_TOOL_IMAGES = 8;

interface ImagePart {
  type: "image";
  source: { type: "data"; value: string; mimeType?: string } | { type: "url"; value: string; mimeType?: string };
}

function isImagePart(p: unknown): p is ImagePart {
  if (typeof p !== "object" || p === null || (p as { type?: unknown }).type !== "image") return false;
  const s = (p as { source?: { type?: unknown; value?: unknown } }).source;
  return typeof s === "object" && s !== null && (s.type === "data" || s.type === "url") && typeof s.value === "string";
}

/** An image's src: inline bytes of an image type, or an http(s) URL; anything else is not drawn. */
function srcOf({ source }: ImagePart): string | undefined {
  if (source.type === "data") return source.mimeType?.startsWith("image/") ? `data:${source.mimeType};base64,${source.value}` : undefined;
  return /^https?:\/\//i.test(source.value) ? source.value : undefined;
}

/** The drawable images of the tool message answering `toolCallId`, in order, at most MAX_TOOL_IMAGES. */
export function toolImages(messages: readonly unknown[] | undefined, toolCallId: string): string[] {
  const tool = messages?.find((m) => {
    const r = m as { role?: unknown; toolCallId?: unknown };
    return r.role === "tool" && r.toolCallId === toolCallId;
  }) as { content?: unknown } | undefined;
  if (!tool || !Array.isArray(tool.content)) return [];
  return tool.content
    .filter(isImagePart)
    .map(srcOf)
    .filter((s): s is string => s !== undefined)
    .slice(0, MAX_TOOL_IMAGES);
}
