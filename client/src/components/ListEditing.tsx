/**
 * The two controls of a list that the user edits in the agent's shared state: a form that adds a
 * row and a row's remove button. The task list (StatePanel) and the shared-state demo's recipe use
 * these same two, so that every such list behaves alike: nothing is added while the draft is
 * blank or while a run is going (`disabled`), and the draft clears once its row is added.
 */
import { useState } from "react";

export function AddForm({
  placeholder,
  disabled,
  onAdd,
  inputTestId,
  buttonTestId,
}: {
  placeholder: string;
  disabled: boolean;
  /** the draft, trimmed and not empty */
  onAdd: (text: string) => void;
  inputTestId: string;
  buttonTestId?: string;
}) {
  const [draft, setDraft] = useState("");
  return (
    <form
      className="task-add"
      onSubmit={(e) => {
        e.preventDefault();
        const text = draft.trim();
        if (!text) return;
        onAdd(text);
        setDraft("");
      }}
    >
      <input data-testid={inputTestId} value={draft} disabled={disabled} placeholder={placeholder} onChange={(e) => setDraft(e.target.value)} />
      <button type="submit" className="btn" data-testid={buttonTestId} disabled={disabled || !draft.trim()}>
        Add
      </button>
    </form>
  );
}

export function RemoveButton({ disabled, onRemove }: { disabled: boolean; onRemove: () => void }) {
  return (
    <button type="button" className="icon-btn" title="Remove" disabled={disabled} onClick={onRemove}>
      ×
    </button>
  );
}
