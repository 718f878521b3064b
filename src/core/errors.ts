/**
 * User-facing failures: a stable code and one sentence saying what is wrong and where.
 * The CLI prints them as one line and exits with status 2; `throw new Error` stays
 * reserved for programmer errors.
 */

export type ErrorCode =
  | 'FILE_NOT_FOUND'
  | 'FILE_UNREADABLE'
  | 'FILE_UNWRITABLE'
  | 'OUTPUT_IS_INPUT'
  | 'OUTPUT_EXISTS'
  | 'LIMIT_EXCEEDED'
  | 'STDIN_TIMEOUT'
  | 'EMPTY_INPUT'
  | 'NOT_JSON'
  | 'NOT_A_TRACE'
  | 'BAD_GZIP'
  | 'BAD_ARGUMENT'
  | 'BAD_EXPECTATIONS'
  | 'DUPLICATE_RANK'
  | 'UNKNOWN_RANK'
  | 'BAD_PARTIAL'
  | 'NOT_AN_EXECUTION_TRACE'
  | 'ET_MISMATCH';

export class KinetoscopeError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly byteOffset?: number,
  ) {
    super(message);
    this.name = 'KinetoscopeError';
  }
}

export function isKinetoscopeError(e: unknown): e is KinetoscopeError {
  return e instanceof KinetoscopeError;
}
