/**
 * protocol/interrupts.ts reasons: what goes on the wire is always an AG-UI 1.0 core reason or a
 * namespaced one, whatever an older log holds; a conforming reason is sent as it is.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CORE_INTERRUPT_REASONS, isConformingReason, wireReason } from "../../protocol/interrupts.ts";

const kind = fc.constantFrom("approval" as const, "input" as const);

describe("interrupt reasons on the wire", () => {
  it("any logged reason goes out conforming; a conforming one unchanged", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60 }), kind, (reason, k) => {
        const wire = wireReason({ reason, kind: k });
        expect(isConformingReason(wire)).toBe(true);
        if (isConformingReason(reason)) expect(wire).toBe(reason);
        else if (!(k === "approval" && reason === "approval") && !/\s/.test(reason) && !reason.startsWith(":")) expect(wire).toBe(`threadline:${reason}`);
      }),
    );
  });

  it("the core set, namespaced names, and the legacy approval reason", () => {
    for (const r of CORE_INTERRUPT_REASONS) expect(isConformingReason(r)).toBe(true);
    expect(isConformingReason("myapp:choose_slot")).toBe(true);
    expect(isConformingReason("approval")).toBe(false);
    expect(isConformingReason(":x")).toBe(false);
    expect(isConformingReason("a:")).toBe(false);
    expect(isConformingReason("a b:c")).toBe(false);
    expect(wireReason({ reason: "approval", kind: "approval" })).toBe("tool_call");
    expect(wireReason({ reason: "approval", kind: "input" })).toBe("threadline:approval");
    expect(wireReason({ reason: "choose a slot", kind: "input" })).toBe("threadline:choose_a_slot");
    expect(wireReason({ reason: "::", kind: "input" })).toBe("threadline:reason");
  });
});
