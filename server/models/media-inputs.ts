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

/**
 * The image types the model adapters pass on, each with the bytes its files start with: the four
 * OpenAI's and Anthropic's vision inputs document. Admission checks a data part's bytes against the type it
 * declares (server/http/media-parts.ts), so a part that says image/png and holds HTML is refused
 * where it enters, not by the provider mid-run. Rejected: trusting the declared type, which
 * the provider then refused mid-run with an error the user could not act on.
 */
export const IMAGE_TYPES: Readonly<Record<string, { name: string; starts: (bytes: Uint8Array) => boolean }>> = {
  "image/png": { name: "PNG", starts: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  "image/jpeg": { name: "JPEG", starts: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  "image/gif": { name: "GIF", starts: (b) => startsWith(b, [...Buffer.from("GIF87a")]) || startsWith(b, [...Buffer.from("GIF89a")]) },
  "image/webp": { name: "WebP", starts: (b) => startsWith(b, [...Buffer.from("RIFF")]) && startsWith(b.subarray(8), [...Buffer.from("WEBP")]) },
};

/** Bytes enough to tell the IMAGE_TYPES apart (WebP's "WEBP" ends at 12). */
export const IMAGE_SIGNATURE_BYTES = 12;

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

/** The IMAGE_TYPES entry `bytes` start like, as its MIME type, or undefined. */
export function imageTypeOf(bytes: Uint8Array): string | undefined {
  return Object.keys(IMAGE_TYPES).find((type) => IMAGE_TYPES[type]!.starts(bytes));
}

/** The image rule of the adapters (openai/messages.ts, ai-sdk/prompt.ts): data or URL, IMAGE_TYPES only. */
export const IMAGE_INPUT: MediaInputRule = {
  sources: ["data", "url"],
  mimeTypes: {
    test: (m) => Object.hasOwn(IMAGE_TYPES, m),
    described: `${Object.values(IMAGE_TYPES).map((t) => t.name).join(", ")} (${Object.keys(IMAGE_TYPES).join(", ")})`,
  },
};

/** Why `model` cannot take `part`, or undefined when it can. */
export function mediaRefusal(modelId: string, inputs: MediaInputs, part: MediaPartView): string | undefined {
  const rule = inputs[part.type];
  if (!rule) return `model "${modelId}" takes no ${part.type} input`;
  if (!rule.sources.includes(part.source.type)) {
    return `model "${modelId}" takes ${part.type} only as ${rule.sources.map((s) => `source.type "${s}"`).join(" or ")}, not "${part.source.type}"`;
  }
  const mime = part.source.mimeType;
  // A URL may leave its type out (AG-UI: optional there); the provider reads it from the response.
  if (mime === undefined && part.source.type === "url") return undefined;
  if (rule.mimeTypes && (mime === undefined || !rule.mimeTypes.test(mime))) {
    return `model "${modelId}" takes ${part.type} only as ${rule.mimeTypes.described}, not ${mime === undefined ? "a part without mimeType" : `"${mime}"`}`;
  }
  return undefined;
}
