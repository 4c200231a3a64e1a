/** Where the app shows "‹ 1/2 ›" (client/src/branch-alternatives.ts). */
import { describe, expect, it } from "vitest";
import { alternativesOf, type ThreadMessage } from "../../client/src/branch-alternatives.ts";

const u = (id: string, content = `q ${id}`): ThreadMessage => ({ id, role: "user", content });
const a = (id: string): ThreadMessage => ({ id, role: "assistant", content: `a ${id}` });
const tool = (id: string): ThreadMessage => ({ id, role: "tool", content: "42" });

describe("alternativesOf", () => {
  const main = [u("u1"), a("a1"), u("u2"), a("a2")];
  const regen = [u("u1"), a("a1"), u("u2"), tool("t1"), a("a2b")];
  const edit = [u("u1", "changed"), a("a1c")];
  const all = [
    { branchId: "main", messages: main },
    { branchId: "r1", messages: regen },
    { branchId: "r2", messages: edit },
  ];

  it("one branch: nothing to switch", () => {
    expect(alternativesOf([{ branchId: "main", messages: main }], "main", "main").size).toBe(0);
  });

  it("after Regenerate: the answers are alternatives; after an edit, the user message's texts", () => {
    const onRegen = alternativesOf(all, "r1", "r2");
    expect(onRegen.get("a2b")).toEqual({ index: 1, branches: ["main", "r1"] });
    // The edited message (same id, other text): the older text leads to the newest branch that has it.
    expect(onRegen.get("u1")).toEqual({ index: 0, branches: ["r1", "r2"] });
    expect([...onRegen.keys()]).toEqual(["u1", "a2b"]);
    const onEdit = alternativesOf(all, "r2", "r2");
    expect(onEdit.get("u1")).toEqual({ index: 1, branches: ["r1", "r2"] });
    expect(onEdit.size).toBe(1);
  });

  it("a branch continued from an older one: the shared choice leads to the current branch", () => {
    const continued = [...main, u("u3"), a("a3")];
    const branches = [...all, { branchId: "c1", messages: continued }];
    const alt = alternativesOf(branches, "c1", "c1");
    expect(alt.get("a2")).toEqual({ index: 0, branches: ["c1", "r1"] });
    expect(alt.has("u3")).toBe(false);
  });
});
