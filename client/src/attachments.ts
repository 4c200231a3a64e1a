/**
 * Images in the composer: CopilotKit's own attachments (its "+" menu's file picker, paste and drop
 * on the chat, thumbnails with Remove, and the message's image parts as AG-UI carries them), held
 * to what the server takes. The limits are the server's (GET /api/agents `attachments`, from
 * server/http/media-parts.ts), never numbers of our own; a file over them is refused here with a
 * sentence saying what to do, before a send the server would answer with 400 or 413.
 *
 * CopilotKit checks the type and the size; the count it does not, so the chat's view hands its
 * attachments to `changed` on each change, and the ones past the limit are taken out again.
 */
import type { CopilotChat } from "@copilotkit/react-core/v2";
import { type ComponentProps, createContext, useContext, useMemo, useRef, useState } from "react";
import type { AttachmentLimits } from "../../protocol/attachments.ts";

export type AttachmentsConfig = NonNullable<ComponentProps<typeof CopilotChat>["attachments"]>;

/** The server's limits, from the agents list (main.tsx provides them). */
export const AttachmentLimitsContext = createContext<AttachmentLimits | null>(null);

export interface ImageAttachments {
  config: AttachmentsConfig | undefined;
  /** Why the last file was not attached, and what to do, until dismissed or a file is taken. */
  problem: string | null;
  dismiss(): void;
  /**
   * The chat's attachments changed: the ones past the server's count are taken out, saying so;
   * otherwise a change of their number (one taken, removed, or sent) ends the last problem.
   */
  changed(attachments: readonly { id: string; filename?: string }[], remove: (id: string) => void): void;
}

export const ImageAttachmentsContext = createContext<ImageAttachments | null>(null);

export function useImageAttachmentsContext(): ImageAttachments | null {
  return useContext(ImageAttachmentsContext);
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : mb.toFixed(2)} MB`;
}

type Refusal = "file-too-large" | "invalid-type" | "upload-failed" | "too-many";

/** What to say about a file not taken: the limit, and what to do instead. */
export function refusalSentence(reason: Refusal, name: string, limits: AttachmentLimits, detail?: string): string {
  if (reason === "file-too-large") return `"${name}" is larger than ${megabytes(limits.maxImageBytes)}, the most one image may be. Make it smaller (resize it, or save it as JPEG), then attach it again.`;
  if (reason === "invalid-type") return `"${name}" is not an image this agent takes: attach ${limits.imageTypeNames}.`;
  if (reason === "too-many") return `A message takes at most ${limits.maxImages} images: "${name}" was not attached. Send these first, or remove one and attach it again.`;
  return `"${name}" could not be read${detail ? ` (${detail})` : ""}. Attach it again.`;
}

export function useImageAttachments(): ImageAttachments {
  const limits = useContext(AttachmentLimitsContext);
  const [problem, setProblem] = useState<string | null>(null);
  // The number last seen, and the number a trim left (whose arrival is no change of the person's).
  const last = useRef({ length: 0, trimmedTo: -1 });
  const config = useMemo<AttachmentsConfig | undefined>(() => {
    if (!limits) return undefined;
    return {
      enabled: true,
      accept: limits.imageTypes.join(","),
      maxSize: limits.maxImageBytes,
      onUploadFailed: ({ reason, file, message }) => setProblem(refusalSentence(reason, file.name, limits, message)),
    };
  }, [limits]);
  return {
    config,
    problem,
    dismiss: () => setProblem(null),
    changed(attachments, remove) {
      const was = last.current;
      if (limits && attachments.length > limits.maxImages) {
        const extra = attachments.slice(limits.maxImages);
        for (const a of extra) remove(a.id);
        setProblem(refusalSentence("too-many", extra[0]?.filename ?? "the image", limits));
        last.current = { length: attachments.length, trimmedTo: limits.maxImages };
        return;
      }
      if (attachments.length !== was.length && attachments.length !== was.trimmedTo) setProblem(null);
      last.current = { length: attachments.length, trimmedTo: -1 };
    },
  };
}
