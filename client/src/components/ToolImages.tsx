/** The images a tool returned, in its card (tool-images.ts says where they come from). */
import type { ReactNode } from "react";

export function ToolImages({ sources }: { sources: readonly string[] }): ReactNode {
  if (sources.length === 0) return null;
  return (
    <div className="tool-images" data-testid="tool-images">
      {sources.map((src, i) => (
        <img key={src.slice(0, 64) + String(i)} src={src} alt={`Returned by the tool (${i + 1} of ${sources.length})`} data-testid="tool-image" />
      ))}
    </div>
  );
}
