/**
 * The `binary` content part of AG-UI before 1.0 (`{type:"binary", mimeType, data|url|id,
 * filename?}`), which `@ag-ui/client` 0.0.59 (CopilotKit 1.74/1.75) still sends for attachments,
 * as the 1.0 part of its kind: image, audio, video or document, by MIME type. Done before the
 * 1.0 schema checks the body, so both client generations reach the same validated input and the
 * log holds one shape. Rejected: widening the schema to take `binary` everywhere downstream,
 * which would put a second attachment shape into the log, the projection and every adapter.
 */
import { z } from "zod";

const LegacyBinaryPartSchema = z.object({
  type: z.literal("binary"),
  mimeType: z.string().min(1),
  id: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  data: z.string().min(1).optional(),
  filename: z.string().optional(),
});
type LegacyBinaryPart = z.infer<typeof LegacyBinaryPartSchema>;

function kindOf(mimeType: string): "image" | "audio" | "video" | "document" {
  const top = mimeType.split("/")[0];
  return top === "image" || top === "audio" || top === "video" ? top : "document";
}

function upgrade(part: LegacyBinaryPart): unknown {
  const { mimeType } = part;
  // data wins over url over id, as the 0.0.x encoders read them.
  const source = part.data
    ? { type: "data", value: part.data, mimeType }
    : part.url
      ? { type: "url", value: part.url, mimeType }
      : part.id
        ? { type: "file", value: part.id, mimeType }
        : undefined;
  if (!source) return part; // no payload: left for the schema to reject with its reasons
  return { type: kindOf(mimeType), source, ...(part.filename && { metadata: { filename: part.filename } }) };
}

/** The body with every legacy `binary` part of its messages upgraded; anything else untouched. */
export function upgradeLegacyParts(body: unknown): unknown {
  if (typeof body !== "object" || body === null || !Array.isArray((body as { messages?: unknown }).messages)) return body;
  const messages = (body as { messages: unknown[] }).messages;
  let changed = false;
  const upgraded = messages.map((m) => {
    const content = (m as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) return m;
    const parts = content.map((p) => {
      const legacy = LegacyBinaryPartSchema.safeParse(p);
      if (!legacy.success) return p;
      changed = true;
      return upgrade(legacy.data);
    });
    return { ...(m as object), content: parts };
  });
  return changed ? { ...(body as object), messages: upgraded } : body;
}
