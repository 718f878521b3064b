/**
 * A guard for regular expressions written by users (kernel-matching patterns): JavaScript's
 * engine backtracks, and a pattern such as `^(a+)+$` takes time exponential in the length of the
 * text it fails on. Without a linear-time engine (a dependency), patterns are held to a subset
 * that backtracks at most polynomially:
 *
 * - no quantifier (`*`, `+`, `{n,m}`) on a group that itself holds a quantifier or an
 *   alternation (`(a+)+`, `(a|ab)*`, `(?:x*y){2,}`): the nested-quantifier shapes behind
 *   catastrophic backtracking;
 * - no backreferences (`\1`, `\k<name>`);
 * - at most MAX_UNBOUNDED unbounded quantifiers (`*`, `+`, `{n,}`) and MAX_PATTERN_CHARS characters
 *   (`.*a.*b.*c` is polynomial of the degree of its stars on a name it fails on).
 *
 * Pure: no `node:` imports.
 */
import { KinetoscopeError } from './errors.js';

export const MAX_PATTERN_CHARS = 1000;
export const MAX_UNBOUNDED = 4;

/** Why the pattern is refused, or undefined when it is in the subset. (Assumes `new RegExp(p)` accepted it.) */
export function regexHazard(p: string): string | undefined {
  if (p.length > MAX_PATTERN_CHARS) return `longer than ${MAX_PATTERN_CHARS} characters`;
  interface Frame {
    quantified: boolean;
    alternation: boolean;
  }
  const stack: Frame[] = [{ quantified: false, alternation: false }];
  let unbounded = 0;
  /** What the next quantifier applies to: a group just closed (its frame), another atom, or nothing. */
  let last: Frame | 'atom' | undefined;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    const top = stack[stack.length - 1]!;
    if (c === '\\') {
      const n = p[i + 1];
      if (n !== undefined && ((n >= '1' && n <= '9') || (n === 'k' && p[i + 2] === '<'))) return 'a backreference';
      i++;
      last = 'atom';
      continue;
    }
    if (c === '[') {
      // A character class: one atom, up to its closing bracket.
      let j = i + 1;
      if (p[j] === '^') j++;
      if (p[j] === ']') j++;
      while (j < p.length && p[j] !== ']') j += p[j] === '\\' ? 2 : 1;
      i = j;
      last = 'atom';
      continue;
    }
    if (c === '(') {
      stack.push({ quantified: false, alternation: false });
      if (p[i + 1] === '?') {
        // (?: (?= (?! (?<= (?<! (?<name>
        i += p[i + 2] === '<' && p[i + 3] !== '=' && p[i + 3] !== '!' ? p.indexOf('>', i) - i : p[i + 2] === '<' ? 3 : 2;
      }
      last = undefined;
      continue;
    }
    if (c === ')') {
      const f = stack.length > 1 ? stack.pop()! : top;
      const parent = stack[stack.length - 1]!;
      parent.quantified ||= f.quantified;
      last = f;
      continue;
    }
    if (c === '|') {
      top.alternation = true;
      last = undefined;
      continue;
    }
    let quant: 'bounded' | 'unbounded' | undefined;
    let end = i;
    if (c === '*' || c === '+') quant = 'unbounded';
    else if (c === '?') quant = last === undefined ? undefined : 'bounded';
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i, i + 24));
      if (m) {
        quant = m[2] !== undefined && m[3] === '' ? 'unbounded' : 'bounded';
        end = i + m[0].length - 1;
      }
    }
    if (quant === undefined) {
      last = 'atom';
      continue;
    }
    if (p[end + 1] === '?') end++; // lazy: the same backtracking
    if (last !== undefined && last !== 'atom' && c !== '?' && (last.quantified || last.alternation)) {
      return `a quantifier on a group that holds ${last.quantified ? 'a quantifier' : 'an alternation'} (nested quantifiers can take exponential time)`;
    }
    if (quant === 'unbounded' && ++unbounded > MAX_UNBOUNDED) return `more than ${MAX_UNBOUNDED} unbounded quantifiers (*, +, {n,})`;
    if (c !== '?') top.quantified = true;
    i = end;
    last = undefined;
  }
  return undefined;
}

/**
 * A pattern from a command-line or tool argument (`kernels --match`, `--rank-regex`), compiled:
 * one sentence (BAD_ARGUMENT, exit 2) when it is not a regular expression or lies outside the
 * subset above.
 */
export function compileUserRegex(pattern: string, what: string): RegExp {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch (e) {
    throw new KinetoscopeError('BAD_ARGUMENT', `${what}: ${JSON.stringify(pattern)} is not a regular expression (${(e as Error).message})`);
  }
  const hazard = regexHazard(pattern);
  if (hazard) throw new KinetoscopeError('BAD_ARGUMENT', `${what}: ${JSON.stringify(pattern)} is refused: ${hazard}; kinetoscope runs patterns in a safe subset (no quantified group holding a quantifier or an alternation, no backreference, at most ${MAX_UNBOUNDED} unbounded quantifiers and ${MAX_PATTERN_CHARS} characters)`);
  return re;
}
