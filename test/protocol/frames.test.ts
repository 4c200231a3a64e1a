/**
 * Frame ids: `${seq}` for an event's only frame, `${seq}.${k}` for one of several; a bare seq
 * sorts after every part of that seq (it means "all of seq seen").
 */
import { describe, expect, it } from "vitest";
import { EventType } from "@ag-ui/core";
import { compareFrameIds, framesAt, parseFrameId, sumUsage, toolContentText, wireMessage } from "../../protocol/frames.ts";

describe("frame ids", () => {
  it("parses both forms and refuses anything else", () => {
    expect(parseFrameId("12")).toEqual({ seq: 12, part: null });
    expect(parseFrameId("12.3")).toEqual({ seq: 12, part: 3 });
    for (const bad of ["", "abc", "1.2.3", "-1", "1.", ".1", "1e3", "99999999999999999999"]) expect(parseFrameId(bad), bad).toBeUndefined();
  });

  it("orders by seq, then part, with a bare seq after all of its parts", () => {
    const ids = ["10", "9.1", "3", "9.0", "9.10", "9.2", "11.0"];
    expect([...ids].sort(compareFrameIds)).toEqual(["3", "9.0", "9.1", "9.2", "9.10", "10", "11.0"]);
    expect(compareFrameIds("9", "9.5")).toBeGreaterThan(0);
    expect(compareFrameIds("9", "9")).toBe(0);
    expect(() => compareFrameIds("x", "1")).toThrow(/Not a frame id: 'x'/);
  });

  it("framesAt numbers one frame bare and several from 0", () => {
    const e = { type: EventType.STEP_STARTED, stepName: "s" } as const;
    expect(framesAt(4, []).map((f) => f.id)).toEqual([]);
    expect(framesAt(4, [e]).map((f) => f.id)).toEqual(["4"]);
    expect(framesAt(4, [e, e, e]).map((f) => f.id)).toEqual(["4.0", "4.1", "4.2"]);
  });
});

describe("wire helpers", () => {
  it("flattens tool content parts to their text; other messages pass unchanged", () => {
    expect(toolContentText("x")).toBe("x");
    expect(toolContentText([{ type: "text", text: "a" }, { type: "image", source: { type: "url", value: "http://x/i.png" } }, { type: "text", text: "b" }])).toBe("ab");
    const userMsg = { id: "u", role: "user" as const, content: [{ type: "text" as const, text: "hi" }] };
    expect(wireMessage(userMsg)).toBe(userMsg);
    expect(wireMessage({ id: "t", role: "tool", toolCallId: "c", content: [{ type: "text", text: "r" }] })).toEqual({ id: "t", role: "tool", toolCallId: "c", content: "r" });
  });

  it("sums usage per provider and model without inventing absent counts", () => {
    expect(
      sumUsage([
        { model: "a", inputTokens: 1 },
        { model: "b", outputTokens: 2 },
        { model: "a", inputTokens: 3, outputTokens: 4 },
      ]),
    ).toEqual([
      { model: "a", inputTokens: 4, outputTokens: 4 },
      { model: "b", outputTokens: 2 },
    ]);
    expect(Object.keys(sumUsage([{ model: "a", inputTokens: 1 }])[0]!)).toEqual(["model", "inputTokens"]);
  });
});
