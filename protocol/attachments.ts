/**
 * What one message may attach, as GET <mount>/agents says it (`attachments`): the wire shape,
 * here; the numbers, server/http/media-parts.ts (attachmentLimits), from the bounds that refuse
 * more. The app's composer takes them as they come (client/src/attachments.ts).
 */
import { z } from "zod";

export const AttachmentLimitsSchema = z.object({
  /** Images in one message. */
  maxImages: z.number().int().positive(),
  /** Bytes of one image file (its base64 must fit one string of the input limits). */
  maxImageBytes: z.number().int().positive(),
  /** MIME types taken: the ones the model adapters pass on. */
  imageTypes: z.array(z.string()),
  /** The same types as a person reads them: "PNG, JPEG, GIF, WebP". */
  imageTypeNames: z.string(),
});
export type AttachmentLimits = z.infer<typeof AttachmentLimitsSchema>;
