/**
 * What media a model takes in a user message, by AG-UI part type, declared by each adapter next
 * to the code that translates the parts (openai/messages.ts, ai-sdk/prompt.ts). One table serves
 * two readers: admission refuses a part the model cannot take (a 400 naming it, nothing written),
 * and the agent's capabilities say which input types it takes. Rejected: letting the adapter turn
 * such a part into a text note at request time (the user's attachment then silently never reached
 * the model), and a per-agent flag written by hand (it would drift from the adapter).
 */
export type MediaKind = "image" | "audio" | "video" | "document";
export const MEDIA_KINDS: readonly MediaKind[] = ["image", "audio", "video", "document"];

export type MediaSourceKind = "data" | "url" | "file";

export interface MediaInputRule {
  /** The AG-UI source types the adapter can pass on. */
  sources: readonly MediaSourceKind[];
  /** The MIME types it can pass on (absent: any), with how to say so to a person. */
  mimeTypes?: { test: (mimeType: string) => boolean; described: string };
}

/** false: the model never takes the kind. */
export type MediaInputs = Readonly<Record<MediaKind, MediaInputRule | false>>;

/** A media part as a user message carries it (AG-UI ContentPart minus text). */
export interface MediaPartView {
  type: MediaKind;
  source: { type: MediaSourceKind; mimeType?: string | undefined };
}

/** Why `model` cannot take `part`, or undefined when it can. */
export function mediaRefusal(modelId: string, inputs: MediaInputs, part: MediaPartView): string | undefined {
  const rule = inputs[part.type];
  if (!rule) return `model "${modelId}" takes no ${part.type} input`;
  if (!rule.sources.includes(part.source.type)) {
    return `model "${modelId}" takes ${part.type} only as ${rule.sources.map((s) => `source.type "${s}"`).join(" or ")}, not "${part.source.type}"`;
  }
  const mime = part.source.mimeType;
  if (rule.mimeTypes && (mime === undefined || !rule.mimeTypes.test(mime))) {
    return `model "${modelId}" takes ${part.type} only as ${rule.mimeTypes.described}, not ${mime === undefined ? "a part without mimeType" : `"${mime}"`}`;
  }
  return undefined;
}
