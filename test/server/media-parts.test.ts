/**
 * Media parts checked where they enter (server/http/media-parts.ts), as properties over bytes and
 * URLs: any bytes base64-encoded are taken as base64 and anything else is not; an image is taken
 * exactly when its bytes start as its declared type's files do; a URL only as https: or data:.
 */
import type { RunAgentInput } from "@ag-ui/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attachmentLimits, base64Problem, mediaPartIssues } from "../../server/http/media-parts.ts";
import { checkInput, DEFAULT_INPUT_LIMITS } from "../../server/http/limits.ts";
import { DEFAULT_EDGE } from "../../server/http/router.ts";
import { IMAGE_TYPES } from "../../server/models/media-inputs.ts";

const SIGNATURES: Record<string, number[]> = {
  "image/png": [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  "image/jpeg": [0xff, 0xd8, 0xff],
  "image/gif": [...Buffer.from("GIF89a")],
  "image/webp": [...Buffer.from("RIFF"), 0x10, 0, 0, 0, ...Buffer.from("WEBP")],
};

function input(part: unknown, role: "user" | "tool" = "user"): RunAgentInput {
  const message = role === "user" ? { id: "m1", role, content: [part] } : { id: "m1", role, toolCallId: "c1", content: [part] };
  return { threadId: "t", runId: "r", messages: [message], tools: [], context: [], state: {}, forwardedProps: {} } as unknown as RunAgentInput;
}
const issuesOf = (source: Record<string, unknown>, kind = "image") => mediaPartIssues(input({ type: kind, source }));

describe("base64Problem", () => {
  it("property: any bytes, encoded, are base64, with or without their padding", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => {
        const text = Buffer.from(bytes).toString("base64");
        expect(base64Problem(text)).toBeUndefined();
        expect(base64Problem(text.replace(/=+$/, ""))).toBeUndefined();
      }),
    );
  });

  it("property: a character outside the alphabet, a space, or a length that makes no whole byte is refused", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 3, maxLength: 64 }), fc.constantFrom("!", " ", "\n", "-", "_", "=="), fc.nat(), (bytes, bad, at) => {
        const text = Buffer.from(bytes).toString("base64").replace(/=+$/, "");
        const i = at % text.length;
        expect(base64Problem(text.slice(0, i) + bad + text.slice(i))).toBeDefined();
      }),
    );
    expect(base64Problem("")).toMatch(/empty/);
    expect(base64Problem("AAAAA")).toMatch(/whole bytes/);
    expect(base64Problem("AA=")).toMatch(/whole bytes/);
  });
});

describe("mediaPartIssues", () => {
  it("property: an image is taken exactly when its bytes start as its declared type's files do", () => {
    const types = Object.keys(IMAGE_TYPES);
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.constantFrom(...types), fc.uint8Array({ maxLength: 40 }), (declared, actual, tail) => {
        const value = Buffer.from([...SIGNATURES[actual]!, ...tail]).toString("base64");
        const issues = issuesOf({ type: "data", value, mimeType: declared });
        if (declared === actual) expect(issues).toEqual([]);
        else expect(issues).toEqual([{ path: "messages.0.content.0.source.value", message: expect.stringContaining(`send it as "${actual}"`) }]);
      }),
    );
  });

  it("property: bytes that are no image type's are refused as the type they claim", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(IMAGE_TYPES)), fc.uint8Array({ minLength: 12, maxLength: 40 }), (declared, bytes) => {
        fc.pre(!Object.values(SIGNATURES).some((sig) => sig.every((b, i) => bytes[i] === b)));
        const issues = issuesOf({ type: "data", value: Buffer.from(bytes).toString("base64"), mimeType: declared });
        expect(issues).toEqual([{ path: "messages.0.content.0.source.value", message: expect.stringMatching(/does not hold .* bytes/) }]);
      }),
    );
  });

  it("an image part's mimeType must be an image type; other kinds are checked for base64 only", () => {
    const png = Buffer.from(SIGNATURES["image/png"]!).toString("base64");
    expect(issuesOf({ type: "data", value: png, mimeType: "text/html" })).toEqual([{ path: "messages.0.content.0.source.mimeType", message: expect.stringContaining('"text/html" is not an image type') }]);
    expect(issuesOf({ type: "data", value: png, mimeType: "image/heic" })).toEqual([]); // whether the model reads it: agent-fit.ts
    expect(issuesOf({ type: "data", value: "AAAA", mimeType: "audio/wav" }, "audio")).toEqual([]);
    expect(issuesOf({ type: "data", value: "AA AA", mimeType: "application/pdf" }, "document")).toEqual([{ path: "messages.0.content.0.source.value", message: expect.stringMatching(/^document part: source.value is not base64/) }]);
  });

  it("property: a URL is taken only as https: or data:, for every kind", () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ["http", "https", "ftp", "file", "ws"] }), fc.constantFrom("image", "audio", "document"), (url, kind) => {
        const issues = issuesOf({ type: "url", value: url }, kind);
        if (url.startsWith("https:")) expect(issues).toEqual([]);
        else expect(issues).toEqual([{ path: "messages.0.content.0.source.value", message: expect.stringMatching(/which is not taken; send an https: URL/) }]);
      }),
      { numRuns: 40 }, // fc.webUrl is slow to generate; 40 cover each scheme and kind many times
    );
    for (const url of ["javascript:alert(1)", "file:///etc/passwd", "vbscript:x", "blob:https://a/b"]) expect(issuesOf({ type: "url", value: url })).toHaveLength(1);
    expect(issuesOf({ type: "url", value: "not a url" })).toEqual([{ path: "messages.0.content.0.source.value", message: expect.stringContaining("is not a URL") }]);
  });

  it("a data: URL is checked as a data source is, and must agree with the part's mimeType", () => {
    const png = Buffer.from([...SIGNATURES["image/png"]!, 1, 2, 3]).toString("base64");
    const jpeg = Buffer.from([...SIGNATURES["image/jpeg"]!, 1, 2, 3]).toString("base64");
    expect(issuesOf({ type: "url", value: `data:image/png;base64,${png}` })).toEqual([]);
    expect(issuesOf({ type: "url", value: `data:image/png;base64,${jpeg}` })).toEqual([{ path: "messages.0.content.0.source.value", message: expect.stringContaining("holds JPEG bytes") }]);
    expect(issuesOf({ type: "url", value: `data:image/png;base64,${png}`, mimeType: "image/jpeg" })).toEqual([{ path: "messages.0.content.0.source.mimeType", message: expect.stringContaining("differs") }]);
    expect(issuesOf({ type: "url", value: "data:image/png,raw" })).toEqual([{ path: "messages.0.content.0.source.value", message: expect.stringContaining("not base64") }]);
  });

  it("a tool message's parts are checked too; text parts and string content are left alone", () => {
    expect(mediaPartIssues(input({ type: "image", source: { type: "url", value: "http://x/y.png" } }, "tool"))).toHaveLength(1);
    expect(mediaPartIssues(input({ type: "text", text: "http://x/y.png" }))).toEqual([]);
  });
});

describe("attachmentLimits (what the composer is told)", () => {
  it("an image of maxImageBytes passes the input limits and one byte more does not; maxImages of them leave a string's room in the body", () => {
    for (const maxStringBytes of [DEFAULT_INPUT_LIMITS.maxStringBytes, 1000, 4096 + 3]) {
      const limits = { ...DEFAULT_INPUT_LIMITS, maxStringBytes };
      const { maxImageBytes, maxImages } = attachmentLimits(limits, DEFAULT_EDGE.maxBodyBytes);
      const at = Buffer.alloc(maxImageBytes).toString("base64");
      const over = Buffer.alloc(maxImageBytes + 1).toString("base64");
      expect(checkInput({ value: at }, limits)).toEqual([]);
      expect(checkInput({ value: over }, limits).map((i) => i.limit)).toEqual(["MAX_STRING_BYTES"]);
      expect(maxImages).toBeGreaterThanOrEqual(1);
      if (maxImages > 1) expect((maxImages + 1) * maxStringBytes).toBeLessThanOrEqual(DEFAULT_EDGE.maxBodyBytes);
    }
  });

  it("the types are the ones the adapters pass on, named for a person", () => {
    const { imageTypes, imageTypeNames } = attachmentLimits(DEFAULT_INPUT_LIMITS, DEFAULT_EDGE.maxBodyBytes);
    expect(imageTypes).toEqual(Object.keys(IMAGE_TYPES));
    expect(imageTypeNames).toBe("PNG, JPEG, GIF, WebP");
  });
});
