/**
 * Images in the composer: CopilotKit's own attachments (its "+" menu's file picker, paste and drop
 * on the chat, thumbnails with Remove, and the message's image parts as AG-UI carries them), held
 * to what the server takes. The limits are the server's (GET /api/agents `attachments`, from
 * server/http/media-parts.ts), never numbers of our own; a file over them is refused here with a
 * sentence saying what to do, before a send the server would answer with 400 or 413.
 *
 * CopilotKit checks the type and the size; the count it does not, so the chat's view hands its
 * attachments to `overLimit` on each change, and the ones past the limit are taken out again.
 */
import type { CopilotChat } from "@copilotkit/react-core/v2";
import { type ComponentProps, createContext, useContext, useMemo, useState } from "react";
import type { AttachmentLimits } from "../../protocol/attachments.ts";

export type AttachmentsConfig = NonNullable<ComponentProps<typeof CopilotChat>["attachments"]>;

/** The server's limits, from the agents list (main.tsx provides them). */
export const AttachmentLimitsContext = createContext<AttachmentLimits | null>(null);

export interface ImageAttachments {
  config: AttachmentsConfig | undefined;
  /** Why the last file was not attached, and what to do, until dismissed or a file is taken. */
  problem: string | null;
  dismiss(): void;
  /** Takes out the attachments past the server's count, saying so. */
  overLimit(attachments: readonly { id: string; filename?: string }[], remove: (id: string) => void): void;
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
    overLimit(attachments, remove) {
      if (!limits || attachments.length <= limits.maxImages) return;
      const extra = attachments.slice(limits.maxImages);
      for (const a of extra) remove(a.id);
      setProblem(refusalSentence("too-many", extra[0]?.filename ?? "the image", limits));
    },
  };
}
