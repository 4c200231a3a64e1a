/**
 * Media parts (image, audio, video, document) checked where they enter, whatever the agent, so
 * that a part the model path could never read is a 400 naming it, with nothing written, not a
 * provider's error in the middle of a run (or, for a URL, a fetch of something that is not the
 * user's attachment):
 * - a data source's value is base64 (RFC 4648: the standard alphabet, padding at the end, no
 *   spaces or line breaks) of at least one byte;
 * - an image part's mimeType is an image type, and for the types the adapters pass on
 *   (models/media-inputs.ts IMAGE_TYPES) its bytes start as files of that type do;
 * - a URL source is https:, or a data: URL (base64, checked as a data source is). Refused: file:
 *   (a path on the server), http: (the provider would fetch it in the clear, or not at all),
 *   javascript: and every other scheme.
 * Whether the agent's model takes the part at all is agent-fit.ts's question. The size bound is
 * the input limits' (limits.ts: a string of at most 1 MB). Rejected: checking only the messages
 * the thread does not have yet, which would need the thread read at the edge; a client resends
 * its history, and an old part that fails here would fail at the provider on every run anyway.
 */
import type { Message, RunAgentInput } from "@ag-ui/core";
import { IMAGE_INPUT, IMAGE_SIGNATURE_BYTES, IMAGE_TYPES, imageTypeOf, MEDIA_KINDS } from "../models/media-inputs.ts";
import type { Issue } from "./errors.ts";
import type { AttachmentLimits } from "../../protocol/attachments.ts";
import type { InputLimits } from "./limits.ts";

/**
 * What a client may attach to one message, said once, here, from the bounds that refuse more:
 * an image's base64 is one string (at most `maxStringBytes`), so its bytes are at most 3/4 of
 * that; a run's body (at most `maxBodyBytes`) also carries the rest of the conversation, so a
 * message takes as many images at that size as fit with one string's room left for the rest;
 * the types are the ones the model adapters pass on (IMAGE_TYPES). The shape is
 * protocol/attachments.ts. GET <mount>/agents serves
 * them and the app's composer enforces them (client/src/attachments.ts), so a person hears
 * "too big" before sending rather than a 413 after. Rejected: the numbers written again in the
 * client, which would drift from the limits an operator sets (MAX_BODY_BYTES).
 */
export function attachmentLimits(limits: Pick<InputLimits, "maxStringBytes">, maxBodyBytes: number): AttachmentLimits {
  return {
    maxImages: Math.max(1, Math.floor(maxBodyBytes / limits.maxStringBytes) - 1),
    maxImageBytes: Math.floor(limits.maxStringBytes / 4) * 3,
    imageTypes: Object.keys(IMAGE_TYPES),
    imageTypeNames: Object.values(IMAGE_TYPES)
      .map((t) => t.name)
      .join(", "),
  };
}

/**
 * A character base64 does not have. Searched for rather than matching the whole text against
 * /^[A-Za-z0-9+/]*={0,2}$/, which ran ten times slower (104 ms against 10 ms for 3.8 MB, four
 * images at the string bound, on a loaded machine).
 */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/** Why `text` is not base64 of at least one byte, or undefined. */
export function base64Problem(text: string): string | undefined {
  if (text === "") return "is empty: a data source carries the file's bytes, base64-encoded";
  const padAt = text.indexOf("=");
  const padding = padAt < 0 ? 0 : text.length - padAt;
  if (NOT_BASE64.test(text) || padding > 2 || (padding === 2 && text[padAt + 1] !== "=")) {
    return "is not base64 (the characters A-Z, a-z, 0-9, + and /, with = padding only at the end; no spaces or line breaks)";
  }
  if ((padding > 0 && text.length % 4 !== 0) || (text.length - padding) % 4 === 1) return "is not base64: its length does not make whole bytes (a character is missing or extra)";
  return undefined;
}

/** Why an image of type `mimeType` cannot be the bytes `base64` encodes, or undefined. */
function imageProblem(mimeType: string | undefined, base64: string): string | undefined {
  const declared = mimeType === undefined ? undefined : IMAGE_TYPES[mimeType];
  if (!declared) return undefined; // not an image type (typeProblem), or one the adapters do not pass on (agent-fit.ts)
  // Whole 4-character groups from the start decode to the first bytes exactly.
  const head = Buffer.from(base64.slice(0, Math.ceil(IMAGE_SIGNATURE_BYTES / 3) * 4), "base64");
  if (declared.starts(head)) return undefined;
  const actual = imageTypeOf(head);
  return actual
    ? `holds ${IMAGE_TYPES[actual]!.name} bytes, not ${declared.name} as its mimeType "${mimeType}" says; send it as "${actual}"`
    : `does not hold ${declared.name} bytes (as its mimeType "${mimeType}" says): the bytes are not an image of that type`;
}

/** Why `mimeType` cannot be an image part's, or undefined. */
function typeProblem(mimeType: string | undefined): string | undefined {
  if (mimeType === undefined || mimeType.startsWith("image/")) return undefined;
  return `"${mimeType}" is not an image type; an image part is ${IMAGE_INPUT.mimeTypes!.described}`;
}

/** A data: URL's type and base64 payload, or why it cannot be read as one. */
function parseDataUrl(url: string): { mimeType: string; data: string } | { problem: string } {
  const comma = url.indexOf(",");
  const header = comma < 0 ? "" : url.slice("data:".length, comma);
  const params = header.split(";");
  if (comma < 0 || params.at(-1) !== "base64") return { problem: 'is a data: URL that is not base64 ("data:<type>;base64,<bytes>" is taken)' };
  return { mimeType: params[0] ?? "", data: url.slice(comma + 1) };
}

interface SourceView {
  type: string;
  value: string;
  mimeType?: string;
}

/** The reasons a media part of `kind` with `source` cannot be read, each under `path`. */
function sourceIssues(kind: string, source: SourceView, path: string): Issue[] {
  const image = kind === "image";
  const at = (field: string, message: string): Issue[] => [{ path: `${path}.source.${field}`, message: `${kind} part: ${message}` }];
  const wrongType = image ? typeProblem(source.mimeType) : undefined;
  if (wrongType) return at("mimeType", `source.mimeType ${wrongType}`);
  if (source.type === "data") {
    const problem = base64Problem(source.value) ?? (image ? imageProblem(source.mimeType, source.value) : undefined);
    return problem ? at("value", `source.value ${problem}`) : [];
  }
  if (source.type !== "url") return [];
  let scheme: string;
  try {
    scheme = new URL(source.value).protocol;
  } catch {
    return at("value", 'source.value is not a URL; send an https: URL, or the bytes as source.type "data"');
  }
  if (scheme === "https:") return [];
  if (scheme !== "data:") return at("value", `source.value is a URL of scheme ${scheme}, which is not taken; send an https: URL (or a data: URL, or the bytes as source.type "data")`);
  const parsed = parseDataUrl(source.value);
  if ("problem" in parsed) return at("value", `source.value ${parsed.problem}`);
  if (source.mimeType !== undefined && parsed.mimeType !== source.mimeType) {
    return at("mimeType", `source.mimeType "${source.mimeType}" differs from the type of the data: URL in source.value, "${parsed.mimeType}"`);
  }
  const urlType = image ? typeProblem(parsed.mimeType) : undefined;
  if (urlType) return at("value", `the type of the data: URL in source.value, ${urlType}`);
  const problem = base64Problem(parsed.data) ?? (image ? imageProblem(parsed.mimeType, parsed.data) : undefined);
  return problem ? at("value", `the data: URL in source.value ${problem}`) : [];
}

/** Every media part of every message that carries parts (user, tool), checked. */
export function mediaPartIssues(input: RunAgentInput): Issue[] {
  const issues: Issue[] = [];
  input.messages.forEach((m: Message, i) => {
    if ((m.role !== "user" && m.role !== "tool") || !Array.isArray(m.content)) return;
    m.content.forEach((part, k) => {
      if (!(MEDIA_KINDS as readonly string[]).includes(part.type)) return;
      issues.push(...sourceIssues(part.type, (part as { source: SourceView }).source, `messages.${i}.content.${k}`));
    });
  });
  return issues;
}
