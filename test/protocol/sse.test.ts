/**
 * Wire framing: SSE frames with ids (LF only, one-line JSON), the keep-alive comment, protobuf
 * framing, and Accept negotiation that never picks protobuf unless the client names it.
 */
import { describe, expect, it } from "vitest";
import { EventType } from "@ag-ui/core";
import { decode } from "@ag-ui/proto";
import type { Frame } from "../../protocol/frames.ts";
import { project } from "../../protocol/project.ts";
import { messagesSnapshotFrames, reconstruct } from "../../protocol/reconstruct.ts";
import { contentTypeOf, encodeBinary, encodeFrame, encodeFrames, framesPieces, KEEP_ALIVE, negotiate, PROTO_MEDIA_TYPE } from "../../protocol/sse.ts";
import { parseSseBlock, SseSplitter, sseData } from "../../protocol/sse-read.ts";
import { assertAcceptedByBoth, checkWithBothClients, CLIENT_VERSIONS } from "../support/agui-clients.ts";
import { scenario, scenarios } from "./scenarios.ts";

const content: Frame = {
  id: "12.1",
  event: { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: "two\r\nlines", timestamp: 1760000000123 },
};

describe("the SSE reader", () => {
  it("reads back what encodeFrame writes, keep-alives between, however the text is chunked", () => {
    const text = `${KEEP_ALIVE}${encodeFrame(content)}${KEEP_ALIVE}${encodeFrame({ ...content, id: "12.2" })}`;
    for (const size of [1, 3, 7, text.length]) {
      const splitter = new SseSplitter();
      const blocks = [];
      for (let i = 0; i < text.length; i += size) blocks.push(...splitter.push(text.slice(i, i + size)).map(parseSseBlock));
      expect(splitter.trailing).toBe("");
      expect(blocks.map((b) => b.comment)).toEqual([true, false, true, false]);
      expect(blocks.filter((b) => !b.comment).map((b) => b.id)).toEqual(["12.1", "12.2"]);
      expect(JSON.parse(sseData(blocks[1]!)!)).toEqual(content.event);
    }
  });

  it("keeps an unterminated block back and puts unknown fields in `other`", () => {
    const splitter = new SseSplitter();
    expect(splitter.push("event: x\ndata: 1\n\ndata: 2")).toEqual(["event: x\ndata: 1"]);
    expect(splitter.trailing).toBe("data: 2");
    expect(parseSseBlock("event: x\ndata: 1")).toMatchObject({ other: ["event: x"], data: ["1"], comment: false });
  });
});

describe("encodeFrame", () => {
  it("writes `id:` then `data: <one-line JSON>` and a blank line, LF only", () => {
    expect(encodeFrame(content)).toBe(
      'id: 12.1\ndata: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"two\\r\\nlines","timestamp":1760000000123}\n\n',
    );
    expect(encodeFrame(content)).not.toMatch(/\r/);
    expect(encodeFrame(content).split("\n")).toHaveLength(4);
  });

  it("drops top-level optional nulls (the 1.0 encoder does) so no client sees `null` for an absent field", () => {
    const frame = { id: "3", event: { type: EventType.RUN_FINISHED, threadId: "t", runId: "r", result: null } } as unknown as Frame;
    expect(encodeFrame(frame)).toBe('id: 3\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n');
  });

  it("refuses an id with a line break, which would end the frame early", () => {
    expect(() => encodeFrame({ ...content, id: "1\n2" })).toThrow(/line break/);
  });

  it("a whole projected conversation, framed, is accepted by both clients; the id lines are ignored by them", async () => {
    const s = scenario("backend tool call with result and follow-up answer");
    const body = project(s.log.events).map(encodeFrame).join("") + KEEP_ALIVE;
    const out = await checkWithBothClients(body);
    assertAcceptedByBoth(out);
    for (const v of CLIENT_VERSIONS) expect(out[v].messages).toEqual(s.messages);
  });
});

describe("framesPieces", () => {
  it("joins to encodeFrames' text in both SSE encodings: every scenario's frames and its reload snapshot", () => {
    const utf8 = new TextDecoder();
    const nulls = { id: "3", event: { type: EventType.RUN_FINISHED, threadId: "t", runId: "r", result: null } } as unknown as Frame;
    for (const s of scenarios()) {
      const snapshot = messagesSnapshotFrames(reconstruct(s.log.events), { reader: "1.0" });
      for (const frames of [project(s.log.events), snapshot, [nulls, content]]) {
        for (const encoding of ["sse", "sse-without-ids"] as const) {
          expect([...framesPieces(frames, encoding)].join("")).toBe(utf8.decode(encodeFrames(frames, encoding)));
        }
      }
    }
  });
});

describe("KEEP_ALIVE", () => {
  it("is an SSE comment: a line starting with ':' and a blank line", () => {
    expect(KEEP_ALIVE).toMatch(/^:[^\n]*\n\n$/);
  });
});

describe("encodeBinary", () => {
  it("is one protobuf message behind a 4-byte big-endian length", () => {
    const bytes = encodeBinary(content);
    const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, false);
    expect(length).toBe(bytes.byteLength - 4);
    expect(decode(bytes.subarray(4))).toMatchObject({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "two\r\nlines" });
  });

  /**
   * Protobuf is outside the 0.0.59 ∩ 1.0 intersection, which is why it is only ever sent to a
   * client that asks for it by name (HttpAgent of either version never does). 1.0 applies our
   * protobuf like our SSE; 0.0.59 drops RUN_STARTED.input and cannot decode 1.0's encoding of
   * TOOL_CALL_RESULT or ACTIVITY_* ("Invalid event"). Pinned here so a change on either side shows.
   */
  it("protobuf: 1.0 applies a projected conversation; 0.0.59 loses the input echo and rejects a tool result", async () => {
    const asProto = (name: string) => {
      const chunks = project(scenario(name).log.events).map(encodeBinary);
      const body = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
      let offset = 0;
      for (const c of chunks) {
        body.set(c, offset);
        offset += c.byteLength;
      }
      return checkWithBothClients(body, { contentType: PROTO_MEDIA_TYPE });
    };
    const chat = await asProto("plain chat");
    expect(chat["1.0.0"].failed).toBe(false);
    expect(chat["1.0.0"].messages).toEqual(scenario("plain chat").messages);
    expect(chat["0.0.59"].failed).toBe(false);
    expect(chat["0.0.59"].messages.map((m) => m.id)).toEqual(["a1"]);

    const tool = "backend tool call with result and follow-up answer";
    const withTool = await asProto(tool);
    expect(withTool["1.0.0"].failed).toBe(false);
    expect(withTool["1.0.0"].messages).toEqual(scenario(tool).messages);
    expect(withTool["0.0.59"].failed).toBe(true);
    expect(withTool["0.0.59"].error?.message).toMatch(/Failed to decode protocol buffer message/);
  });
});

describe("negotiate", () => {
  it.each([
    [undefined, "sse"],
    [null, "sse"],
    ["", "sse"],
    ["*/*", "sse"],
    ["application/*", "sse"],
    ["text/event-stream", "sse"],
    ["application/json, */*;q=0.8", "sse"],
    ["application/vnd.ag-ui.event+proto", "proto"],
    ["Application/Vnd.AG-UI.Event+Proto", "proto"],
    ["application/vnd.ag-ui.event+proto, */*", "proto"],
    ["application/vnd.ag-ui.event+proto;q=0", "sse"],
    ["text/event-stream, application/vnd.ag-ui.event+proto", "sse"],
    ["text/event-stream;q=0.5, application/vnd.ag-ui.event+proto", "proto"],
    ["text/event-stream, application/vnd.ag-ui.event+proto;q=0.5", "sse"],
  ] as const)("Accept %j -> %s", (accept, expected) => {
    expect(negotiate(accept)).toBe(expected);
  });

  it("names the content type of each format", () => {
    expect(contentTypeOf("sse")).toBe("text/event-stream");
    expect(contentTypeOf("proto")).toBe("application/vnd.ag-ui.event+proto");
  });
});
