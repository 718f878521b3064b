/**
 * The bounds every read holds to, so that a hostile or broken input ends in one clear error
 * (LIMIT_EXCEEDED, the limit named with the flag that raises it, and the byte offset) instead
 * of an abort, a stack overflow or hours of work. The defaults sit far above what a real trace
 * holds (a 10 GB Kineto trace: ~40 M events, strings of a few kB, numbers of ≤ 25 characters,
 * args nested < 10 deep). Set once per process (the CLI's flags) and handed to the parse workers.
 *
 * Where each is enforced: string and number lengths by the tokenizer (a string longer than
 * the limit is found when the unit holding it outgrows the limit; numbers where they are
 * parsed), depth by the tokenizer's value parser, events and input bytes by the readers
 * (read-trace.ts, read-parallel.ts) after each chunk.
 */
import { KinetoscopeError } from '../core/errors.js';

export interface ReadLimits {
  /** Bytes of one JSON string (a name, an args value, a header value). */
  readonly maxStringBytes: number;
  /** Characters of one number token. */
  readonly maxNumberChars: number;
  /** Nesting of objects and arrays inside one event or header value. */
  readonly maxDepth: number;
  /** Events in the trace. */
  readonly maxEvents: number;
  /** Bytes of JSON text (after gunzip). */
  readonly maxInputBytes: number;
}

export const DEFAULT_LIMITS: ReadLimits = {
  maxStringBytes: 64 * 2 ** 20,
  maxNumberChars: 4096,
  maxDepth: 1000,
  maxEvents: 1_000_000_000,
  maxInputBytes: 256 * 2 ** 30,
};

/**
 * The most each may be raised to: a string of 2^29 − 24 characters is V8's longest; deeper
 * nesting than HARD_MAX_DEPTH would overflow the parser's stack; more events than 2^31 − 1
 * overflow the model's 32-bit indexes.
 */
export const HARD_LIMITS: ReadLimits = {
  maxStringBytes: 2 ** 29 - 24,
  maxNumberChars: 2 ** 20,
  maxDepth: 5000,
  maxEvents: 2 ** 31 - 1,
  maxInputBytes: Number.MAX_SAFE_INTEGER,
};

/** The CLI flag that raises each limit. */
export const LIMIT_FLAGS: Record<keyof ReadLimits, string> = {
  maxStringBytes: '--max-string-bytes',
  maxNumberChars: '--max-number-chars',
  maxDepth: '--max-depth',
  maxEvents: '--max-events',
  maxInputBytes: '--max-input-bytes',
};

/** This process's defaults: DEFAULT_LIMITS, or lower ones a server set (setDefaultReadLimits). */
let defaults: ReadLimits = DEFAULT_LIMITS;
let current: ReadLimits = DEFAULT_LIMITS;
/** Standard input: fail when no byte came for this long (ms; 0: wait for ever, the default for pipes that stream slowly). */
let stdinIdleMs = 0;

export function setStdinIdleMs(ms: number): void {
  stdinIdleMs = ms;
}

export function stdinIdle(): number {
  return stdinIdleMs;
}

/** Sets the limits of this process's reads (unset keys keep this process's defaults). */
export function setReadLimits(l: Partial<ReadLimits>): void {
  current = { ...defaults, ...l };
}

/**
 * Lowers this process's defaults (the MCP server's call runner derives them from the machine's
 * memory: an agent cannot judge a file before it is read); the flags still raise them, up to
 * HARD_LIMITS.
 */
export function setDefaultReadLimits(l: Partial<ReadLimits>): void {
  defaults = { ...DEFAULT_LIMITS, ...l };
  current = defaults;
}

export function defaultReadLimits(): ReadLimits {
  return defaults;
}

export function readLimits(): ReadLimits {
  return current;
}

const WHAT: Record<keyof ReadLimits, string> = {
  maxStringBytes: 'a string longer than',
  maxNumberChars: 'a number token longer than',
  maxDepth: 'values nested deeper than',
  maxEvents: 'more events than',
  maxInputBytes: 'more JSON text than',
};
const UNIT: Record<keyof ReadLimits, string> = { maxStringBytes: 'bytes', maxNumberChars: 'characters', maxDepth: 'levels', maxEvents: '', maxInputBytes: 'bytes' };

/** The one error past a limit: what, the limit, where, and the flag that raises it. */
export function limitError(key: keyof ReadLimits, byteOffset: number): KinetoscopeError {
  const limit = current[key];
  const unit = UNIT[key] ? ` ${UNIT[key]}` : '';
  return new KinetoscopeError('LIMIT_EXCEEDED', `${WHAT[key]} ${limit.toLocaleString('en-US')}${unit} at byte ${byteOffset} (the limit ${LIMIT_FLAGS[key]}; raise it if the trace is genuine)`, byteOffset);
}
