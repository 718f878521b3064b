/**
 * A demangler for the part of the Itanium C++ ABI mangling (itanium-cxx-abi.github.io/cxx-abi/abi.html,
 * "Mangling") that GPU kernel names use: nested and unscoped names, template arguments (types,
 * integer / bool / enum literals, packs), substitutions (`S_`, `S<seq>_`, `St`, `Sa`, `Ss` …),
 * template parameters (`T_`, `T<n>_`), builtin types, pointers / references / cv-qualifiers, ABI
 * tags, and the function's parameter list. Kineto usually demangles kernel names itself; some reach
 * the trace mangled — cuDNN's CUTLASS convolutions on torch 2.11 / CUDA 13.0 / cuDNN 9.19
 * (`_ZN17cutlass__5x_cudnn6KernelINS_4conv6kernel23ImplicitGemmConvolution…`, vit_train) — and
 * the decoder needs their template arguments to say what they compute.
 *
 * Ignores (returns undefined for the whole name, never a partial guess): local names (`Z…E`),
 * lambdas and unnamed types (`Ul…E`, `Ut_`), operator names, expressions (`X…E`, `L_Z…E`),
 * member pointers and vendor qualifiers. Output spelling follows llvm-cxxfilt (`A<x, y> >`,
 * `(Enum)0`, `256u`), the demangler the tests compare against.
 *
 * Pure: no `node:` imports.
 */

const BUILTIN: Record<string, string> = {
  v: 'void', w: 'wchar_t', b: 'bool', c: 'char', a: 'signed char', h: 'unsigned char', s: 'short',
  t: 'unsigned short', i: 'int', j: 'unsigned int', l: 'long', m: 'unsigned long', x: 'long long',
  y: 'unsigned long long', n: '__int128', o: 'unsigned __int128', f: 'float', d: 'double',
  e: 'long double', g: '__float128', z: '...',
};
// <builtin-type> ::= Dn (decltype(nullptr)), Di (char32_t), Ds (char16_t), Du (char8_t), Dh (half).
const BUILTIN_D: Record<string, string> = { n: 'std::nullptr_t', i: 'char32_t', s: 'char16_t', u: 'char8_t', h: 'half' };
// <substitution> ::= St | Sa | Sb | Ss | Si | So | Sd (the ABI's abbreviations).
const STD_SUBS: Record<string, string> = {
  t: 'std', a: 'std::allocator', b: 'std::basic_string', s: 'std::string', i: 'std::istream', o: 'std::ostream', d: 'std::iostream',
};
// Integer literal suffixes llvm-cxxfilt prints (`Lj4E` → 4u).
const LITERAL_SUFFIX: Record<string, string> = { i: '', j: 'u', l: 'l', m: 'ul', x: 'll', y: 'ull', s: '', t: '', c: '', a: '', h: '' };

class Unsupported extends Error {}

/** The demangled text of an Itanium-mangled name (`_Z…`), or undefined when it uses grammar this subset leaves out. */
export function demangleItanium(mangled: string): string | undefined {
  if (!mangled.startsWith('_Z')) return undefined;
  try {
    const p = new Parser(mangled, 2);
    const out = p.encoding();
    if (p.pos !== mangled.length) return undefined;
    return out;
  } catch (e) {
    if (e instanceof Unsupported || e instanceof RangeError) return undefined;
    throw e;
  }
}

class Parser {
  /** Substitution candidates, rendered, in the order the ABI numbers them. */
  private readonly subs: string[] = [];
  /** The template arguments `T_` refers to: the encoding's outermost ones. */
  private templateParams: string[] = [];
  private depth = 0;

  constructor(
    private readonly s: string,
    public pos: number,
  ) {}

  private peek(k = 0): string {
    return this.s[this.pos + k] ?? '';
  }

  private fail(): never {
    throw new Unsupported(`unsupported mangling at ${this.pos}`);
  }

  private expect(c: string): void {
    if (this.s[this.pos] !== c) this.fail();
    this.pos++;
  }

  encoding(): string {
    const { text, templated, args } = this.name();
    if (templated) this.templateParams = args;
    if (this.pos >= this.s.length || this.peek() === 'E' || this.peek() === '.') return text;
    // <bare-function-type>: a function template's encoding starts with its return type.
    let ret = '';
    if (templated) ret = this.type();
    const params: string[] = [];
    while (this.pos < this.s.length && this.peek() !== 'E' && this.peek() !== '.') params.push(this.type());
    const list = params.length === 1 && params[0] === 'void' ? '' : joinArgs(params);
    return `${ret ? `${ret} ` : ''}${text}(${list})`;
  }

  /** <name>: nested, unscoped (maybe `St`-qualified), or a substitution followed by template arguments. */
  private name(): { text: string; templated: boolean; args: string[] } {
    const c = this.peek();
    if (c === 'N') return this.nestedName();
    if (c === 'Z') this.fail(); // local name
    if (c === 'S' && this.peek(1) !== 't') {
      const sub = this.substitution();
      if (this.peek() !== 'I') this.fail(); // a bare substitution is not a <name>
      const args = this.templateArgs();
      return { text: `${sub}${renderArgs(args)}`, templated: true, args };
    }
    let text: string;
    if (c === 'S' && this.peek(1) === 't') {
      this.pos += 2;
      text = `std::${this.unqualifiedName()}`;
    } else text = this.unqualifiedName();
    if (this.peek() === 'I') {
      this.subs.push(text); // <unscoped-template-name> is a substitution candidate
      const args = this.templateArgs();
      return { text: `${text}${renderArgs(args)}`, templated: true, args };
    }
    return { text, templated: false, args: [] };
  }

  private nestedName(): { text: string; templated: boolean; args: string[] } {
    this.expect('N');
    let quals = '';
    while (this.peek() === 'r' || this.peek() === 'V' || this.peek() === 'K') {
      const q = this.s[this.pos++];
      quals += q === 'K' ? ' const' : q === 'V' ? ' volatile' : ' restrict';
    }
    if (this.peek() === 'R' || this.peek() === 'O') this.pos++; // ref-qualifier of a member function
    let prefix = '';
    let templated = false;
    let args: string[] = [];
    while (this.peek() !== 'E') {
      if (this.pos >= this.s.length) this.fail();
      const c = this.peek();
      let pushed = true;
      if (c === 'I') {
        if (!prefix) this.fail();
        args = this.templateArgs();
        prefix += renderArgs(args);
        templated = true;
      } else {
        templated = false;
        if (c === 'S' && !prefix) {
          if (this.peek(1) === 't') {
            this.pos += 2;
            prefix = 'std';
            pushed = false; // `St` itself is never a candidate
          } else {
            prefix = this.substitution();
            pushed = false;
          }
        } else if (c === 'T' && !prefix) prefix = this.templateParam();
        else if (c === 'D' && (this.peek(1) === 't' || this.peek(1) === 'T')) this.fail(); // decltype
        else prefix = prefix ? `${prefix}::${this.unqualifiedName()}` : this.unqualifiedName();
      }
      // Every prefix but the whole name is a candidate here; the whole name is added by the
      // type that contains it (a function's own name is never added).
      if (pushed && this.peek() !== 'E') this.subs.push(prefix);
    }
    this.pos++;
    return { text: `${prefix}${quals}`, templated, args };
  }

  /** <unqualified-name>: a <source-name> with optional ABI tags; other kinds (operators, ctors, lambdas) are unsupported. */
  private unqualifiedName(): string {
    const c = this.peek();
    if (c === 'L') this.pos++; // internal-linkage marker (GCC)
    if (!/[0-9]/.test(this.peek())) {
      // constructors/destructors: C1-C5, D0-D5 need the enclosing class name; operators and lambdas are out of scope
      this.fail();
    }
    let text = this.sourceName();
    while (this.peek() === 'B') {
      this.pos++;
      text += `[abi:${this.sourceName()}]`;
    }
    return text;
  }

  private sourceName(): string {
    const start = this.pos;
    while (/[0-9]/.test(this.peek())) this.pos++;
    if (start === this.pos) this.fail();
    const n = Number(this.s.slice(start, this.pos));
    if (this.pos + n > this.s.length) this.fail();
    const id = this.s.slice(this.pos, this.pos + n);
    this.pos += n;
    // GCC's `_GLOBAL__N_1` is the anonymous namespace.
    return id.startsWith('_GLOBAL__N') ? '(anonymous namespace)' : id;
  }

  /** <substitution>: S_ | S <seq-id> _ | St | Sa | Sb | Ss | Si | So | Sd. */
  private substitution(): string {
    this.expect('S');
    const c = this.peek();
    if (c === '_') {
      this.pos++;
      return this.sub(0);
    }
    if (STD_SUBS[c] !== undefined && !/[0-9A-Z]/.test(c)) {
      this.pos++;
      return STD_SUBS[c] as string;
    }
    const start = this.pos;
    while (/[0-9A-Z]/.test(this.peek())) this.pos++;
    if (start === this.pos || this.peek() !== '_') this.fail();
    const seq = parseInt(this.s.slice(start, this.pos), 36);
    this.pos++;
    return this.sub(seq + 1);
  }

  private sub(i: number): string {
    const v = this.subs[i];
    if (v === undefined) this.fail();
    return v;
  }

  /** <template-param>: T_ | T <n> _ (the encoding's template arguments). */
  private templateParam(): string {
    this.expect('T');
    let i = 0;
    if (this.peek() !== '_') {
      const start = this.pos;
      while (/[0-9]/.test(this.peek())) this.pos++;
      if (start === this.pos) this.fail();
      i = Number(this.s.slice(start, this.pos)) + 1;
    }
    this.expect('_');
    const v = this.templateParams[i];
    if (v === undefined) this.fail();
    return v;
  }

  private templateArgs(): string[] {
    this.expect('I');
    const args: string[] = [];
    while (this.peek() !== 'E') {
      if (this.pos >= this.s.length) this.fail();
      args.push(this.templateArg());
    }
    this.pos++;
    return args;
  }

  private templateArg(): string {
    const c = this.peek();
    if (c === 'L') return this.literal();
    if (c === 'J') {
      this.pos++;
      const pack: string[] = [];
      while (this.peek() !== 'E') {
        if (this.pos >= this.s.length) this.fail();
        pack.push(this.templateArg());
      }
      this.pos++;
      return joinArgs(pack);
    }
    if (c === 'X') this.fail(); // expression
    return this.type();
  }

  /** <expr-primary> ::= L <type> <value> E (integer, bool and enum literals; `L_Z…E` is unsupported). */
  private literal(): string {
    this.expect('L');
    if (this.peek() === '_') this.fail();
    const c = this.peek();
    let typeText: string | undefined;
    let builtin: string | undefined;
    if (BUILTIN[c] !== undefined && c !== 'v' && c !== 'z') {
      builtin = c;
      this.pos++;
    } else typeText = this.type();
    const start = this.pos;
    while (this.peek() !== 'E') {
      if (this.pos >= this.s.length) this.fail();
      this.pos++;
    }
    let value = this.s.slice(start, this.pos);
    this.pos++;
    if (value.startsWith('n')) value = `-${value.slice(1)}`;
    if (builtin === 'b') return value === '0' ? 'false' : value === '1' ? 'true' : `(bool)${value}`;
    if (builtin !== undefined) {
      const suffix = LITERAL_SUFFIX[builtin];
      return suffix === undefined ? `(${BUILTIN[builtin]})${value}` : `${value}${suffix}`;
    }
    return `(${typeText})${value}`;
  }

  type(): string {
    if (++this.depth > 200) this.fail();
    try {
      return this.typeInner();
    } finally {
      this.depth--;
    }
  }

  private typeInner(): string {
    const c = this.peek();
    if (BUILTIN[c] !== undefined) {
      this.pos++;
      return BUILTIN[c] as string;
    }
    if (c === 'u') {
      this.pos++;
      return this.sourceName(); // vendor extended type
    }
    if (c === 'D' && BUILTIN_D[this.peek(1)] !== undefined) {
      const k = this.peek(1);
      this.pos += 2;
      return BUILTIN_D[k] as string;
    }
    if (c === 'D' && this.peek(1) === 'F') {
      // DF<N>_ : _Float<N>
      this.pos += 2;
      const start = this.pos;
      while (/[0-9]/.test(this.peek())) this.pos++;
      const n = this.s.slice(start, this.pos);
      this.expect('_');
      return `_Float${n}`;
    }
    if (c === 'K' || c === 'V' || c === 'r') {
      this.pos++;
      const inner = this.type();
      const t = `${inner} ${c === 'K' ? 'const' : c === 'V' ? 'volatile' : 'restrict'}`;
      this.subs.push(t);
      return t;
    }
    if (c === 'P' || c === 'R' || c === 'O') {
      this.pos++;
      const inner = this.type();
      const mark = c === 'P' ? '*' : c === 'R' ? '&' : '&&';
      // pointer to function: ret (*)(args)
      const fn = /^(.*?) \((.*)\)$/.exec(inner);
      const t = inner.startsWith('(') || !fn ? `${inner}${mark}` : `${fn[1]} (${mark})(${fn[2]})`;
      this.subs.push(t);
      return t;
    }
    if (c === 'F') {
      this.pos++;
      if (this.peek() === 'Y') this.pos++;
      const ret = this.type();
      const params: string[] = [];
      while (this.peek() !== 'E') {
        if (this.pos >= this.s.length) this.fail();
        if (this.peek() === 'R' && this.peek(1) === 'E') {
          this.pos++;
          continue;
        }
        params.push(this.type());
      }
      this.pos++;
      const t = `${ret} (${params.length === 1 && params[0] === 'void' ? '' : joinArgs(params)})`;
      this.subs.push(t);
      return t;
    }
    if (c === 'A') {
      this.pos++;
      const start = this.pos;
      while (/[0-9]/.test(this.peek())) this.pos++;
      const n = this.s.slice(start, this.pos);
      this.expect('_');
      const t = `${this.type()} [${n}]`;
      this.subs.push(t);
      return t;
    }
    if (c === 'T') {
      let t = this.templateParam();
      this.subs.push(t);
      if (this.peek() === 'I') {
        t += renderArgs(this.templateArgs());
        this.subs.push(t);
      }
      return t;
    }
    if (c === 'S') {
      if (this.peek(1) === 't') {
        // St <unqualified-name>: std::name, a class type
        const { text } = this.name();
        this.subs.push(text);
        return text;
      }
      let t = this.substitution();
      if (this.peek() === 'I') {
        t += renderArgs(this.templateArgs());
        this.subs.push(t);
      }
      return t;
    }
    if (c === 'N' || /[0-9]/.test(c)) {
      const { text } = this.name();
      this.subs.push(text);
      return text;
    }
    return this.fail();
  }
}

function renderArgs(args: readonly string[]): string {
  const body = joinArgs(args);
  return `<${body}${body.endsWith('>') ? ' ' : ''}>`;
}

/**
 * Template arguments (or parameters) joined with `, `; an empty pack (`JE`, e.g. the trailing
 * `class... Args` of CUTLASS's `FusionCallbacks<…, JE>` in torch._grouped_mm's kernel, or a `T_`
 * naming one) renders as nothing and takes no comma, as llvm-cxxfilt prints it.
 */
function joinArgs(args: readonly string[]): string {
  return args.filter((a) => a !== '').join(', ');
}
