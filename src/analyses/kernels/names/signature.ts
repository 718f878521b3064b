/**
 * A kernel name read as a C++ signature (`void ns::name<targs>(params)`): the namespaces, the base
 * name, the template and call arguments every decoder reads, split at the top level of the brackets.
 */

// Demangled C++ signatures: `void ns::name<targs>(params)`

export interface Signature {
  /** `at::native::vectorized_elementwise_kernel`, or the bare name. */
  qualified: string;
  /** Last component: `vectorized_elementwise_kernel`. */
  base: string;
  namespaces: string[];
  templateArgs?: string[];
  params?: string;
}

export const ANON = '(anonymous namespace)';
/** Kernel names that identify nothing by themselves: the wrapped template argument or namespace does. */
export const GENERIC_BASES = new Set(['kernel', 'Kernel', 'Kernel2', 'device_kernel', 'kernel_']);
const ANON_MARK = '\u0001';

// Character codes of the brackets and separators the signature parser looks at (charCodeAt: no
// one-character string per character).
const LT = 60;
const GT = 62;
const LPAREN = 40;
const RPAREN = 41;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const SPACE = 32;
const COMMA = 44;

export function parseSignature(raw: string): Signature {
  const s = raw.includes(ANON) ? raw.split(ANON).join(ANON_MARK) : raw;
  const { paramsStart, lastSpace } = scanDeclarator(s);
  let declarator = paramsStart >= 0 ? s.slice(0, paramsStart) : s;
  // The parameter list runs to the last ")".
  const params = paramsStart >= 0 ? s.slice(paramsStart + 1, s.lastIndexOf(')') > paramsStart ? s.lastIndexOf(')') : s.length) : undefined;
  if (lastSpace >= 0) declarator = declarator.slice(lastSpace + 1);
  // Template arguments: the first top-level '<' … matching '>'.
  let qualified = declarator;
  let templateArgs: string[] | undefined;
  const lt = declarator.indexOf('<');
  if (lt > 0) {
    qualified = declarator.slice(0, lt);
    templateArgs = templateArgsAt(declarator, lt).map(restoreAnon);
  }
  qualified = restoreAnon(qualified);
  const parts = qualified.split('::');
  const base = parts[parts.length - 1] ?? qualified;
  const sig: Signature = { qualified, base, namespaces: parts.slice(0, -1) };
  if (templateArgs) sig.templateArgs = templateArgs;
  if (params !== undefined) sig.params = restoreAnon(params);
  return sig;
}

function restoreAnon(s: string): string {
  return s.includes(ANON_MARK) ? s.split(ANON_MARK).join(ANON) : s;
}

/**
 * Where the parameter list starts — the first top-level '(' (-1: none) — and the last top-level
 * space before it, where the return type ends: one scan, stopping there. (The loops of the parser
 * are small functions of their own: V8 compiles a small function quickly.)
 */
function scanDeclarator(s: string): { paramsStart: number; lastSpace: number } {
  let lastSpace = -1;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LT || c === LBRACE || c === LBRACKET) depth++;
    else if (c === GT || c === RBRACE || c === RBRACKET || c === RPAREN) {
      if (depth > 0) depth--;
    } else if (c === LPAREN) {
      if (depth === 0) return { paramsStart: i, lastSpace };
      depth++;
    } else if (c === SPACE && depth === 0) lastSpace = i;
  }
  return { paramsStart: -1, lastSpace };
}

/**
 * The arguments of the bracket opened at s[open], split on its top-level commas, up to the
 * bracket that closes it (or the end): one scan.
 */
function templateArgsAt(s: string, open: number): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = open + 1;
  let end = s.length;
  for (let i = open + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LT || c === LPAREN || c === LBRACE || c === LBRACKET) depth++;
    else if (c === GT || c === RPAREN || c === RBRACE || c === RBRACKET) {
      if (depth === 0) {
        end = i;
        break;
      }
      depth--;
    } else if (c === COMMA && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = s.slice(start, end).trim();
  if (last !== '' || out.length) out.push(last);
  return out;
}

/** Split on top-level commas. */
export function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === LT || c === LPAREN || c === LBRACE || c === LBRACKET) depth++;
    else if (c === GT || c === RPAREN || c === RBRACE || c === RBRACKET) {
      if (depth > 0) depth--;
    } else if (c === COMMA && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = s.slice(start).trim();
  if (last !== '' || out.length) out.push(last);
  return out;
}

/** `at::native::Foo<int>(x)::{lambda()#1}` → the identifying function/type name `Foo`. */
export function identName(expr: string): string {
  let s = expr.trim();
  if (s.includes(ANON)) s = s.split(ANON).join('');
  const lt = s.search(/[<(]/);
  if (lt >= 0) s = s.slice(0, lt);
  const parts = s.split('::').filter((p) => p !== '' && p !== ANON);
  return parts[parts.length - 1] ?? s;
}

/** The first top-level template-argument list of a type expression (`A<x, y>` → ['x', 'y']). */
export function typeArgs(expr: string): string[] {
  const lt = expr.indexOf('<');
  if (lt < 0) return [];
  return templateArgsAt(expr, lt);
}
