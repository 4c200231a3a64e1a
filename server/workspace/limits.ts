/**
 * The workspace tools' limits, in one place so that a tool, its description and the tests that
 * pin it read the same number.
 */
/** `read` returns this many lines when no limit is given: a screenful of files, not a whole log. */
export const READ_DEFAULT_LINES = 2_000;
/** A longer line is cut in `read`'s result. */
export const READ_MAX_LINE_CHARS = 2_000;
/** Most text `read` returns in one call (UTF-8 bytes); past it the result says where to go on. */
export const READ_MAX_BYTES = 128 * 1024;
/** Largest file `read` and `edit` open (bash with head/sed reads bigger ones). */
export const FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Largest image `read` returns as an image. */
export const READ_IMAGE_MAX_BYTES = 1024 * 1024;
/** Largest content `write` accepts, and largest file `edit` leaves. */
export const WRITE_MAX_BYTES = 10 * 1024 * 1024;
/** Most of grep's output kept in its result; a line longer than GREP_MAX_LINE_CHARS is cut. */
export const GREP_OUTPUT_MAX_BYTES = 32 * 1024;
export const GREP_MAX_LINE_CHARS = 500;
export const GREP_TIMEOUT_MS = 30_000;
/** Most paths `find` returns, and entries it visits. */
export const FIND_MAX_RESULTS = 1_000;
export const FIND_MAX_VISITED = 50_000;
/** Most entries `ls` returns. */
export const LS_MAX_ENTRIES = 1_000;
/** bash's default and largest timeout, in seconds: long enough for a build, short enough to notice a hang. */
export const BASH_DEFAULT_TIMEOUT_S = 120;
export const COMMAND_MAX_TIMEOUT_S = 600;
/** run's default timeout, in seconds. */
export const RUN_DEFAULT_TIMEOUT_S = 30;
