/**
 * Expectations files (YAML) read into the typed `Expectations` the check takes, and written
 * back from what a trace shows. Every mistake in a file — YAML syntax, an unknown key, a
 * value of the wrong type, a pattern that is not a regular expression — is a
 * `BAD_EXPECTATIONS` error naming the file and the line at fault.
 *
 * Text in, text out: no file system here (the CLI reads and writes the files).
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node, type Pair } from 'yaml';
import { KinetoscopeError } from '../core/errors.js';
import { regexHazard } from '../core/safe-regex.js';
import { EXPECTATION_KEYS, VERDICTS, type DerivedExpectations, type Expectations, type Verdict } from '../analyses/compare/expectations.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const KEY_BY_SPELLING = new Map(Object.entries(EXPECTATION_KEYS).map(([field, spelling]) => [spelling as string, field as keyof Expectations]));

/** What each key takes, for error messages and `--help`. */
export const EXPECTATION_KEY_HELP: Record<string, string> = {
  per: 'an annotation name, "step" or "trace" (default "step")',
  instances: 'how many instances of the scope the trace has',
  kernels: 'device kernels per instance (memsets and copies not counted)',
  gemms: 'GEMM kernels per instance (owned by a GEMM op, or named as one: nvjet, cuBLAS, CUTLASS, Triton templates, …)',
  launches: 'runtime/driver calls per instance that launched kernels (memsets and copies are not launches)',
  'absent-ops': 'a list of host event names that must not occur',
  ops: 'a map {name: calls per instance} of host events (ops, annotations, API calls)',
  'kernel-matching': 'a map {regular expression: kernels per instance whose name, or short name, it finds}',
  'views-launch-nothing': 'true: every view op (aten::t, view, reshape, …) launched no GPU work',
  'gpu-idle-max': 'the most the GPU may be idle in each instance: "20%" (a bare number is a percent)',
  verdict: `${VERDICTS.join(' or ')}, for every instance`,
  'step-time-max': 'each instance\'s duration at most {us: 500, tolerance: "10%"} (or a bare number of µs)',
};

export function parseExpectationsYaml(text: string, file: string): Expectations {
  const lineCounter = new LineCounter();
  // uniqueKeys: false: the library's own check compares every key with every other (50,000 keys:
  // 98 s); duplicates are found below with a set per mapping.
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: false });
  const lineOf = (node: Node | null | undefined): number | undefined => (node?.range ? lineCounter.linePos(node.range[0]).line : undefined);
  const fail = (line: number | undefined, what: string): never => {
    throw new KinetoscopeError('BAD_EXPECTATIONS', `${file}${line !== undefined ? `:${line}` : ''}: ${what}`);
  };
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    fail(err.linePos?.[0]?.line, `not valid YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) fail(undefined, 'the file holds no expectations');
  if (!isMap(root)) fail(lineOf(root as Node), 'expected a mapping of expectation keys (per: …, kernels: …)');

  /** Throws for the second of two equal keys in one mapping (linear: a set per mapping). */
  const noDuplicates = (items: readonly Pair[], where: string) => {
    const seen = new Map<string, number | undefined>();
    for (const p of items) {
      const k = isScalar(p.key as Node) ? String((p.key as { value: unknown }).value) : undefined;
      if (k === undefined) continue;
      if (seen.has(k)) {
        const first = seen.get(k);
        fail(lineOf(p.key as Node), `${where}key ${JSON.stringify(k)} written twice${first !== undefined ? ` (first on line ${first})` : ''}`);
      }
      seen.set(k, lineOf(p.key as Node));
    }
  };
  const out: Mutable<Expectations> = {};
  noDuplicates((root as { items: Pair[] }).items, '');
  for (const pair of (root as { items: Pair[] }).items) {
    const keyNode = pair.key as Node;
    const spelling = isScalar(keyNode) ? String(keyNode.value) : undefined;
    const line = lineOf(keyNode);
    const field = spelling !== undefined ? KEY_BY_SPELLING.get(spelling) : undefined;
    if (field === undefined) {
      const hint = spelling !== undefined ? closest(spelling, [...KEY_BY_SPELLING.keys()]) : undefined;
      fail(line, `unknown key ${JSON.stringify(spelling ?? String(keyNode))}${hint ? ` (did you mean "${hint}"?)` : ''}; known keys: ${[...KEY_BY_SPELLING.keys()].join(', ')}`);
    }
    const value = pair.value as Node | null;
    const at = lineOf(value) ?? line;
    const bad = (wanted: string): never => fail(at, `${spelling}: expected ${wanted}, got ${describe(value)}`);
    switch (field!) {
      case 'per': {
        const v = scalar(value);
        if (typeof v !== 'string' || v === '') bad('an annotation name, "step" or "trace"');
        out.per = v as string;
        break;
      }
      case 'instances':
      case 'kernels':
      case 'gemms':
      case 'launches':
        out[field!] = count(scalar(value), bad);
        break;
      case 'absentOps': {
        if (isScalar(value) && typeof value.value === 'string') out.absentOps = [value.value];
        else if (isSeq(value)) {
          out.absentOps = value.items.map((item) => {
            const v = scalar(item as Node);
            if (typeof v !== 'string' || v === '') fail(lineOf(item as Node) ?? at, `${spelling}: expected op names, got ${describe(item as Node)}`);
            return v as string;
          });
        } else bad('a list of op names, e.g. [aten::add]');
        break;
      }
      case 'ops':
      case 'kernelMatching': {
        if (!isMap(value)) bad(field === 'ops' ? 'a map {op name: calls}, e.g. {aten::linear: 3}' : 'a map {pattern: kernels}, e.g. {"gelu.*mul": 1}');
        // No prototype: a key such as __proto__ or constructor is data like any other.
        const map: Record<string, number> = Object.create(null) as Record<string, number>;
        noDuplicates((value as unknown as { items: Pair[] }).items, `${spelling}: `);
        for (const p of (value as unknown as { items: Pair[] }).items) {
          const k = scalar(p.key as Node);
          const kl = lineOf(p.key as Node) ?? at;
          if (typeof k !== 'string' || k === '') fail(kl, `${spelling}: expected a ${field === 'ops' ? 'name' : 'pattern'} as key, got ${describe(p.key as Node)}`);
          if (field === 'kernelMatching') {
            try {
              new RegExp(k as string);
            } catch (e) {
              fail(kl, `${spelling}: ${JSON.stringify(k)} is not a regular expression (${(e as Error).message})`);
            }
            const hazard = regexHazard(k as string);
            if (hazard) fail(kl, `${spelling}: ${JSON.stringify(k)} is refused: ${hazard}; kinetoscope runs patterns in a safe subset (see check --help)`);
          }
          map[k as string] = count(scalar(p.value as Node), (wanted) => fail(lineOf(p.value as Node) ?? kl, `${spelling}: ${k}: expected ${wanted}, got ${describe(p.value as Node)}`));
        }
        out[field!] = map;
        break;
      }
      case 'viewsLaunchNothing': {
        const v = scalar(value);
        if (typeof v !== 'boolean') bad('true or false');
        out.viewsLaunchNothing = v as boolean;
        break;
      }
      case 'gpuIdleMaxPercent': {
        const v = percent(scalar(value));
        if (v === undefined || v < 0 || v > 100) bad('a percentage between 0% and 100%, e.g. 20%');
        out.gpuIdleMaxPercent = v!;
        break;
      }
      case 'verdict': {
        const v = scalar(value);
        if (typeof v !== 'string' || !VERDICTS.includes(v as Verdict)) bad(VERDICTS.join(' or '));
        out.verdict = v as Verdict;
        break;
      }
      case 'stepTimeMax': {
        const plain = scalar(value);
        if (typeof plain === 'number') {
          if (!(plain > 0)) bad('a positive number of µs');
          out.stepTimeMax = { us: plain, tolerancePercent: 0 };
          break;
        }
        if (!isMap(value)) bad('{us: 500, tolerance: 10%} or a number of µs');
        let usLimit: number | undefined;
        let tolerance = 0;
        for (const p of (value as unknown as { items: Pair[] }).items) {
          const k = scalar(p.key as Node);
          const kl = lineOf(p.key as Node) ?? at;
          const v = scalar(p.value as Node);
          if (k === 'us') {
            if (typeof v !== 'number' || !(v > 0)) fail(lineOf(p.value as Node) ?? kl, `${spelling}: us: expected a positive number of µs, got ${describe(p.value as Node)}`);
            usLimit = v as number;
          } else if (k === 'tolerance') {
            const t = percent(v);
            if (t === undefined || t < 0) fail(lineOf(p.value as Node) ?? kl, `${spelling}: tolerance: expected a percentage, e.g. 10%, got ${describe(p.value as Node)}`);
            tolerance = t!;
          } else fail(kl, `${spelling}: unknown key ${JSON.stringify(k)}; known keys: us, tolerance`);
        }
        if (usLimit === undefined) fail(at, `${spelling}: missing us (the limit in µs)`);
        out.stepTimeMax = { us: usLimit!, tolerancePercent: tolerance };
        break;
      }
    }
  }
  return out;
}

/** A starting expectations file: what the trace shows, with comments for what could not be written. */
export function stringifyExpectations(derived: DerivedExpectations, source: string): string {
  const e = derived.expectations;
  const doc: Record<string, unknown> = {};
  for (const [field, spelling] of Object.entries(EXPECTATION_KEYS) as [keyof Expectations, string][]) {
    const v = e[field];
    if (v === undefined) continue;
    if (field === 'gpuIdleMaxPercent') doc[spelling] = `${v as number}%`;
    else if (field === 'stepTimeMax') {
      const s = v as NonNullable<Expectations['stepTimeMax']>;
      doc[spelling] = { us: s.us, tolerance: `${s.tolerancePercent}%` };
    } else if ((field === 'ops' || field === 'kernelMatching') && Object.keys(v as object).length === 0) continue;
    else doc[spelling] = v;
  }
  const header = [
    `Expectations written by kinetoscope from ${source}: what the trace shows, every count per instance.`,
    'Edit them into what the change should do, then gate on: kinetoscope check TRACE --expect THIS_FILE',
    'Keys you may add: absent-ops: [aten::add]',
    ...derived.notes.map((n) => `Not written: ${n}`),
  ];
  return `${header.map((l) => `# ${l}`).join('\n')}\n${stringify(doc, { lineWidth: 0 })}`;
}

function scalar(node: Node | null | undefined): unknown {
  return node && isScalar(node) ? node.value : undefined;
}

function count(v: unknown, bad: (wanted: string) => never): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) bad('a whole number ≥ 0');
  return v as number;
}

/** `20%`, `12.5 %`, or a bare number meaning percent. */
function percent(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(v);
  return m ? Number(m[1]) : undefined;
}

function describe(node: Node | null | undefined): string {
  if (node === null || node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    // A number the YAML reader could not hold (1e400 → Infinity) is shown as written.
    if (typeof v === 'number' && !Number.isFinite(v)) return `${node.source ?? String(v)} (out of range)`;
    if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) return `${node.source ?? String(v)} (out of range)`;
    return v === null ? 'nothing' : JSON.stringify(v);
  }
  return 'an alias';
}

/** The known key nearest to a misspelt one (edit distance ≤ 3), if any. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 4;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}
