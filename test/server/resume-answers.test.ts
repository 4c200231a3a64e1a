/**
 * The admission's rule for answers (server/engine/resume.ts planResume, interrupt-answers.ts), as
 * properties over payloads, without a server: a resolved answer is admitted exactly when it fits
 * the interrupt's responseSchema (a hand-written JSON Schema with bounds, as an application gives
 * ctx.interrupt()), and a refusal names the interrupt and exactly the fields that do not fit; a
 * cancel is admitted whatever it carries.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InterruptRecord } from "../../protocol/interrupts.ts";
import { InvalidResumeError } from "../../server/engine/interrupt-errors.ts";
import { planResume } from "../../server/engine/resume.ts";

const ATTENDEES = { min: 1, max: 10 };
const ROOM_MAX = 12;
const SCHEMA = {
  type: "object",
  properties: {
    attendees: { type: "integer", minimum: ATTENDEES.min, maximum: ATTENDEES.max },
    room: { type: "string", maxLength: ROOM_MAX },
  },
  required: ["attendees"],
  additionalProperties: false,
};

const record: InterruptRecord = {
  request: {
    runId: "r1",
    interruptId: "interrupt-call-1-1",
    kind: "input",
    toolCallId: "call-1",
    toolName: "book_room",
    parentMessageId: "a1",
    reason: "myapp:book_room",
    responseSchema: SCHEMA,
  },
};

function plan(entry: { status: "resolved" | "cancelled"; payload?: unknown }) {
  const interrupts = new Map([[record.request.interruptId, record]]);
  return planResume({ threadId: "t1", runId: "r2", interrupts, tools: () => undefined, now: 0 }, [], [{ interruptId: record.request.interruptId, ...entry }]);
}

function refusal(entry: { status: "resolved" | "cancelled"; payload?: unknown }): InvalidResumeError | undefined {
  try {
    plan(entry);
    return undefined;
  } catch (err) {
    if (err instanceof InvalidResumeError) return err;
    throw err;
  }
}

describe("an answer against its interrupt's responseSchema", () => {
  it("at the bounds: the last value that fits is admitted, the first one past it refused naming the field", () => {
    expect(refusal({ status: "resolved", payload: { attendees: ATTENDEES.max, room: "r".repeat(ROOM_MAX) } })).toBeUndefined();
    expect(refusal({ status: "resolved", payload: { attendees: ATTENDEES.min } })).toBeUndefined();
    const over = refusal({ status: "resolved", payload: { attendees: ATTENDEES.max + 1, room: "r".repeat(ROOM_MAX + 1) } });
    expect(over).toMatchObject({ code: "INVALID_RESUME", status: 400, details: { interruptId: record.request.interruptId } });
    expect(over!.details.issues).toEqual([
      { path: "resume.0.payload.attendees", message: `must be <= ${ATTENDEES.max}` },
      { path: "resume.0.payload.room", message: `must NOT have more than ${ROOM_MAX} characters` },
    ]);
    expect(over!.message).toContain(record.request.interruptId);
    expect(over!.message).toContain(`resume.0.payload.attendees: must be <= ${ATTENDEES.max}`);
    expect(refusal({ status: "resolved" })?.details.issues).toEqual([{ path: "resume.0.payload", message: "must be object" }]);
  });

  it("property: admitted exactly when every field fits; a refusal names exactly the fields that do not", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -3, max: 14 }),
        fc.option(fc.string({ maxLength: ROOM_MAX + 4 }), { nil: undefined }),
        fc.boolean(),
        (attendees, room, extra) => {
          const payload = { attendees, ...(room !== undefined && { room }), ...(extra && { floor: 2 }) };
          const bad = [
            ...(attendees < ATTENDEES.min || attendees > ATTENDEES.max ? ["resume.0.payload.attendees"] : []),
            ...(room !== undefined && room.length > ROOM_MAX ? ["resume.0.payload.room"] : []),
            ...(extra ? ["resume.0.payload.floor"] : []), // a key the schema does not take, named
          ];
          const refused = refusal({ status: "resolved", payload });
          if (bad.length === 0) {
            expect(refused).toBeUndefined();
            expect(plan({ status: "resolved", payload }).events).toEqual([expect.objectContaining({ type: "interrupt.resolved", data: expect.objectContaining({ status: "resolved", payload }) })]);
          } else {
            expect((refused!.details.issues as { path: string }[]).map((i) => i.path).sort()).toEqual(bad.sort());
          }
        },
      ),
    );
  });

  it("property: a cancel is admitted whatever it carries", () => {
    fc.assert(
      fc.property(fc.option(fc.jsonValue(), { nil: undefined }), (payload) => {
        const { events } = plan({ status: "cancelled", ...(payload !== undefined && { payload }) });
        expect(events.map((e) => e.data.status)).toEqual(["cancelled"]);
      }),
    );
  });
});
