/** splitStatements: a `;` ends a statement only outside quotes, dollar quotes and comments. */
import { describe, expect, it } from "vitest";
import { splitStatements } from "../../server/store/sql-script.ts";

describe("splitStatements", () => {
  it("cuts at top-level semicolons and drops what holds only blanks and comments", () => {
    const script = "-- header; not a statement\ncreate table a (x int);\n\n  insert into a values (1) ;\n-- trailing; comment\n";
    expect(splitStatements(script)).toEqual(["-- header; not a statement\ncreate table a (x int)", "insert into a values (1)"]);
  });

  it("keeps semicolons inside strings, identifiers, dollar quotes and comments", () => {
    const statements = [
      "insert into a values ('it''s; fine')",
      `create table "odd;name" ("a""b;" int)`,
      "create function f() returns int language sql as $body$ select 1; select 2; $body$",
      "do $$ begin perform 1; end $$",
      "select 1 /* one; /* nested; */ still; */ + 1",
      "select E'back\\'slash; quote'",
      "select $1::int",
    ];
    expect(splitStatements(statements.join(";\n"))).toEqual(statements);
  });

  it("a statement without a final semicolon still counts", () => {
    expect(splitStatements("select 1; select 2")).toEqual(["select 1", "select 2"]);
  });

  it("refuses unterminated quotes and comments rather than guess", () => {
    expect(() => splitStatements("select 'open; select 2")).toThrow(/Unterminated '/);
    expect(() => splitStatements("select $x$ open; select 2")).toThrow(/Unterminated dollar-quoted/);
    expect(() => splitStatements("select 1 /* open; select 2")).toThrow(/Unterminated \/\*/);
  });
});
