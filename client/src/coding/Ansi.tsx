/**
 * Terminal text with its ANSI colours and styles, parsed by anser into parts and drawn as spans
 * (no HTML strings, so nothing a command prints can become markup).
 */
import Anser from "anser";
import type { CSSProperties } from "react";
import { segments, type TerminalChunk } from "./streams.ts";

function styleOf(part: Anser.AnserJsonEntry): CSSProperties | undefined {
  const style: CSSProperties = {};
  if (part.fg) style.color = `rgb(${part.fg})`;
  if (part.bg) style.backgroundColor = `rgb(${part.bg})`;
  for (const d of part.decorations) {
    if (d === "bold") style.fontWeight = 700;
    else if (d === "dim") style.opacity = 0.7;
    else if (d === "italic") style.fontStyle = "italic";
    else if (d === "underline") style.textDecoration = "underline";
    else if (d === "strikethrough") style.textDecoration = "line-through";
    else if (d === "hidden") style.visibility = "hidden";
  }
  return Object.keys(style).length > 0 ? style : undefined;
}

function AnsiText({ text }: { text: string }) {
  const parts = Anser.ansiToJson(text, { json: true, remove_empty: true });
  return (
    <>
      {parts.map((p, i) => {
        const style = styleOf(p);
        return style ? (
          <span key={i} style={style} data-ansi="">
            {p.content}
          </span>
        ) : (
          <span key={i}>{p.content}</span>
        );
      })}
    </>
  );
}

/** Chunks of both streams in the order they came; stderr runs are marked (and tinted by CSS). */
export function TerminalText({ chunks }: { chunks: readonly TerminalChunk[] }) {
  return (
    <>
      {segments(chunks).map((s, i) => (
        <span key={i} className={`stream-${s.stream}`} data-stream={s.stream}>
          <AnsiText text={s.data} />
        </span>
      ))}
    </>
  );
}
