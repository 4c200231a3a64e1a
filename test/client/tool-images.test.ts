/**
 * The app's tool card draws a tool's images from the thread view's tool message (content parts as
 * GET /api/threads/:id returns them: protocol-versions.test.ts asserts that shape).
 */
import { describe, expect, it } from "vitest";
import { MAX_TOOL_IMAGES, toolImages } from "../../client/src/components/tool-images.ts";

const PNG = "iVBORw0KGgo";
const image = (value: string, mimeType = "image/png") => ({ type: "image", source: { type: "data", value, mimeType } });
const toolMessage = (toolCallId: string, content: unknown) => ({ id: `m-${toolCallId}`, role: "tool", toolCallId, content });

describe("toolImages", () => {
  it("the images of that call's tool message, as data: or http(s) sources, in order", () => {
    const messages = [
      { id: "a", role: "assistant", content: "" },
      toolMessage("call-other", [image("OTHER")]),
      toolMessage("call-draw", [{ type: "text", text: "chart" }, image(PNG), { type: "image", source: { type: "url", value: "https://example.com/a.png" } }]),
    ];
    expect(toolImages(messages, "call-draw")).toEqual([`data:image/png;base64,${PNG}`, "https://example.com/a.png"]);
  });

  it("draws nothing it should not: text results, non-image bytes, other URL schemes, unknown calls", () => {
    expect(toolImages([toolMessage("c", "chart: sales")], "c")).toEqual([]);
    expect(toolImages([toolMessage("c", [image(PNG, "application/pdf"), { type: "image", source: { type: "url", value: "javascript:alert(1)" } }])], "c")).toEqual([]);
    expect(toolImages([toolMessage("c", [image(PNG)])], "nope")).toEqual([]);
    expect(toolImages(undefined, "c")).toEqual([]);
  });

  it(`at most MAX_TOOL_IMAGES (${MAX_TOOL_IMAGES}): at the bound all, past it the first ones`, () => {
    const many = (n: number) => [toolMessage("c", Array.from({ length: n }, (_, i) => image(`P${i}`)))];
    expect(toolImages(many(MAX_TOOL_IMAGES), "c")).toHaveLength(MAX_TOOL_IMAGES);
    const past = toolImages(many(MAX_TOOL_IMAGES + 1), "c");
    expect(past).toHaveLength(MAX_TOOL_IMAGES);
    expect(past.at(-1)).toBe(`data:image/png;base64,P${MAX_TOOL_IMAGES - 1}`);
  });
});
