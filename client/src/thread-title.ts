/** What the page calls a thread: its title (the name given, else its first message), or this until it has one. */
export const UNTITLED = "New conversation";

export function threadTitle(title: string | null | undefined): string {
  return title ?? UNTITLED;
}
