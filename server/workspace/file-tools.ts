/**
 * The file tools: read (text in a window of lines, or an image), write and edit. write and edit
 * record an `artifact.written` event and are idempotent when the engine runs them again after a
 * crash: nothing is written when the file already holds the result.
 */
import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../agents/define.ts";
import { unifiedDiff } from "./diff.ts";
import type { WorkspaceHost } from "./host.ts";
import { READ_DEFAULT_LINES, READ_IMAGE_MAX_BYTES, READ_MAX_BYTES, READ_MAX_LINE_CHARS, WRITE_MAX_BYTES } from "./limits.ts";
import { locateForWrite } from "./paths.ts";
import { cutDiff, fail, open, readText, refusedAsResult, withWorkspace, writeAt } from "./tool-support.ts";
import { fileTypeOf } from "./workspaces.ts";

const IMAGE_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** `read`: a window of a text file's lines, or an image. */
export function readTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "read",
    description: `Read a file of the workspace (text, or an image: png, jpg, gif, webp). Returns up to ${READ_DEFAULT_LINES} lines by default; offset is the first line (1-based), limit the number of lines.`,
    inputSchema: z.object({
      path: z.string().describe("path relative to the workspace"),
      offset: z.number().int().min(1).optional().describe("first line to read, 1-based"),
      limit: z.number().int().min(1).optional().describe(`number of lines (default ${READ_DEFAULT_LINES})`),
    }),
    execute: ({ path: p, offset = 1, limit = READ_DEFAULT_LINES }, ctx) =>
      withWorkspace(host(), ctx, async (dir) => {
        const f = await open(dir, p, "file");
        try {
          const mime = IMAGE_TYPES[fileTypeOf(f.rel)];
          if (mime) return await readImage(f.handle, f.rel, f.stat.size, mime);
          return lineWindow(f.rel, await readText(f.handle, f.stat.size), offset, limit);
        } finally {
          await f.handle.close();
        }
      }),
  });
}

async function readImage(file: FileHandle, rel: string, size: number, mimeType: string) {
  if (size > READ_IMAGE_MAX_BYTES) fail(`The image is ${size} bytes; read returns images up to ${READ_IMAGE_MAX_BYTES} bytes.`);
  const data = await file.readFile();
  return { content: [{ type: "text" as const, text: `${rel} (${data.length} bytes)` }, { type: "image" as const, data: data.toString("base64"), mimeType }] };
}

/**
 * Lines offset..offset+limit-1 of `text`, long lines cut and the whole kept under READ_MAX_BYTES,
 * with a note that says which lines these are and where to read on.
 */
function lineWindow(rel: string, text: string, offset: number, limit: number): string {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const total = lines.length;
  if (total === 0) return `(${rel} is empty)`;
  if (offset > total) fail(`offset ${offset} is past the end: ${rel} has ${total} lines.`);
  const out: string[] = [];
  let bytes = 0;
  let cutLines = 0;
  let last = offset - 1;
  let stoppedBySize = false;
  for (let i = offset - 1; i < Math.min(total, offset - 1 + limit); i++) {
    let line = lines[i]!;
    if (line.length > READ_MAX_LINE_CHARS) {
      line = `${line.slice(0, READ_MAX_LINE_CHARS)}… [line cut at ${READ_MAX_LINE_CHARS} characters]`;
      cutLines++;
    }
    const n = Buffer.byteLength(line) + 1;
    if (bytes + n > READ_MAX_BYTES && out.length > 0) {
      stoppedBySize = true;
      break;
    }
    out.push(line);
    bytes += n;
    last = i + 1;
  }
  const notes: string[] = [];
  if (stoppedBySize) notes.push(`stopped at ${READ_MAX_BYTES} bytes (READ_MAX_BYTES)`);
  if (cutLines > 0) notes.push(`${cutLines} long line(s) cut`);
  if (last < total || offset > 1 || notes.length > 0) {
    notes.unshift(`lines ${offset}-${last} of ${total}`);
    if (last < total) notes.push(`read on with offset=${last + 1}`);
  }
  return notes.length > 0 ? `${out.join("\n")}\n\n[${notes.join("; ")}]` : out.join("\n");
}

/** `write`: creates or replaces a file. */
export function writeTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "write",
    description: "Create or overwrite a file of the workspace with `content` (parent directories are created).",
    inputSchema: z.object({ path: z.string(), content: z.string() }),
    execute: ({ path: p, content }, ctx) =>
      withWorkspace(host(), ctx, async (dir) => {
        const size = Buffer.byteLength(content);
        if (size > WRITE_MAX_BYTES) fail(`The content is ${size} bytes; write accepts up to ${WRITE_MAX_BYTES}.`);
        const loc = await refusedAsResult(locateForWrite(dir, p));
        try {
          const existing = loc.stat?.isFile() ? await open(loc.dir, loc.name, "file") : undefined;
          const action: "created" | "updated" = loc.stat ? "updated" : "created";
          let unchanged = false;
          if (existing) {
            // Run again after a crash (or asked twice): the file already holds it; nothing to write.
            try {
              unchanged = existing.stat.size === size && (await existing.handle.readFile("utf8")) === content;
            } finally {
              await existing.handle.close();
            }
          }
          if (!unchanged) await writeAt(host(), loc, content, existing ? existing.stat.mode & 0o7777 : undefined);
          await ctx.artifact({ path: loc.rel, action, fileType: fileTypeOf(loc.rel), size });
          return { path: loc.rel, action, size, ...(unchanged && { note: "The file already had this content; it was left as is." }) };
        } finally {
          await loc.close();
        }
      }),
  });
}

/** `edit`: replaces an exact string in a file. */
export function editTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "edit",
    description:
      "Replace `old_string` with `new_string` in a file of the workspace. old_string must match exactly (whitespace included) and exactly once, unless replace_all is true.",
    inputSchema: z.object({
      path: z.string(),
      old_string: z.string().min(1),
      new_string: z.string(),
      replace_all: z.boolean().optional(),
    }),
    execute: ({ path: p, old_string, new_string, replace_all }, ctx) =>
      withWorkspace(host(), ctx, async (dir) => {
        const f = await open(dir, p, "file");
        let before: string;
        try {
          before = await readText(f.handle, f.stat.size);
        } finally {
          await f.handle.close();
        }
        const count = before.split(old_string).length - 1;
        if (old_string === new_string) fail("old_string and new_string are the same: nothing to change.");
        if (count === 0) {
          // Run again after a crash: the edit is already in the file.
          if (new_string !== "" && before.includes(new_string)) {
            await ctx.artifact({ path: f.rel, action: "edited", fileType: fileTypeOf(f.rel), size: Buffer.byteLength(before) });
            return { path: f.rel, replacements: 0, note: "old_string is not in the file but new_string is: the edit was already applied." };
          }
          fail(`old_string was not found in ${f.rel}. Read the file and copy the text exactly, whitespace included.`);
        }
        if (count > 1 && !replace_all) {
          fail(`old_string occurs ${count} times in ${f.rel}. Give more surrounding text so that it matches once, or set replace_all.`);
        }
        const after = replace_all ? before.split(old_string).join(new_string) : before.replace(old_string, () => new_string);
        const size = Buffer.byteLength(after);
        if (size > WRITE_MAX_BYTES) fail(`The edited file would be ${size} bytes; files are kept up to ${WRITE_MAX_BYTES}.`);
        // The file as resolved (links inside the workspace followed): its own place is rewritten.
        const loc = await refusedAsResult(locateForWrite(dir, f.rel));
        try {
          await writeAt(host(), loc, after, f.stat.mode & 0o7777);
        } finally {
          await loc.close();
        }
        const diff = cutDiff(unifiedDiff(before, after, f.rel));
        await ctx.artifact({ path: f.rel, action: "edited", fileType: fileTypeOf(f.rel), size, ...diff });
        return { path: f.rel, replacements: replace_all ? count : 1, size, diff: diff.diff, ...(diff.diffTruncated && { diffTruncated: true }) };
      }),
  });
}
