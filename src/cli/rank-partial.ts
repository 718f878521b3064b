/**
 * A rank's partial: the summary `ranks` keeps of one trace (analyses/ranks/ranks.ts
 * `RankSummary`: its steps, collective calls and overlap totals) as a small JSON file, so that
 * the map (`ranks --partial OUT TRACE`, run where the trace is) and the reduce (`ranks
 * PARTIALS…`) can run on different machines and give the document `ranks TRACES…` gives.
 *
 * The file's layout is schema/ranks-partial.schema.json, and that schema is what the reader
 * checks (Ajv), so the two cannot drift. A partial is recognised by its content: a JSON object
 * whose first key is `kinetoscopePartial` (safe-write.ts recognises an earlier one the same way).
 * It is refused (BAD_PARTIAL, exit 2) when its `partialVersion` is not this reader's or when
 * another kinetoscope version wrote it: the summary is what that version's analysis kept, and
 * a job reduced from two versions' summaries would mix two definitions without saying so.
 *
 * Numbers the summary holds as NaN (a call's unknown `Seq`, size, group size) are written as null.
 */
import { readSync } from 'node:fs';
import { openInput, readInputText, type InputFile } from './input-files.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { CollectiveCall } from '../analyses/ranks/collectives.js';
import type { RankSummary } from '../analyses/ranks/ranks.js';
import { KinetoscopeError } from '../core/errors.js';
import { VERSION } from './program.js';
import { readSchema } from './schemas.js';

/** The layout's version: raised when a field changes meaning or goes away. */
export const PARTIAL_VERSION = 1;
/** The key that opens every partial (its value: the command that reads it). */
export const PARTIAL_MARK = 'kinetoscopePartial';

/** A partial as read: the trace it summarises (the path as the map was given it) and the summary. */
export interface RankPartial {
  readonly trace: string;
  readonly summary: RankSummary;
}

const nullIfNaN = (x: number) => (Number.isNaN(x) ? null : x);
const nanIfNull = (x: number | null) => (x === null ? NaN : x);

/** The summary's totals, which a partial keeps as they are both ways (written and read back in this order). */
function totalsOf(s: Pick<RankSummary, 'commSource' | 'commNs' | 'computeNs' | 'overlapNs' | 'stepCommNs' | 'stepExposedNs' | 'issuedCollectives' | 'events' | 'bytesRead' | 'warnings'>) {
  return {
    commSource: s.commSource,
    commNs: s.commNs,
    computeNs: s.computeNs,
    overlapNs: s.overlapNs,
    stepCommNs: s.stepCommNs,
    stepExposedNs: s.stepExposedNs,
    issuedCollectives: s.issuedCollectives,
    events: s.events,
    bytesRead: s.bytesRead,
    warnings: s.warnings,
  };
}

/** The partial of `trace`'s summary, as the text written to the file (one line, compact). */
export function partialText(trace: string, s: RankSummary): string {
  const doc = {
    [PARTIAL_MARK]: 'ranks',
    partialVersion: PARTIAL_VERSION,
    kinetoscopeVersion: VERSION,
    trace,
    summary: {
      infoRank: s.infoRank ?? null,
      worldSize: s.worldSize ?? null,
      ...(s.ignoredInfo !== undefined ? { ignoredInfo: s.ignoredInfo } : {}),
      backend: s.backend ?? null,
      originNs: s.originNs,
      steps: s.steps.map((x) => ({ name: x.name, number: x.number, startNs: x.startNs, durNs: x.durNs })),
      calls: s.calls.map((c) => ({
        name: c.name,
        pg: c.pg,
        seq: nullIfNaN(c.seq),
        step: c.step,
        elements: nullIfNaN(c.elements),
        bytes: nullIfNaN(c.bytes),
        dtype: c.dtype,
        groupSize: nullIfNaN(c.groupSize),
        startNs: c.startNs,
        endNs: c.endNs,
        source: c.source,
      })),
      ...totalsOf(s),
    },
  };
  return `${JSON.stringify(doc)}\n`;
}

const HEAD = new RegExp(`^\\s*\\{\\s*"${PARTIAL_MARK}"\\s*:`);

/** Whether these first bytes of a file open a partial. */
export function isPartialHead(head: string): boolean {
  return HEAD.test(head);
}

/**
 * Whether `path` is a partial, by its first bytes; false for what is not a regular file or cannot
 * be read (its reader says why; a FIFO is not opened here, where opening it would wait for a writer).
 */
export function isPartialFile(path: string): boolean {
  let file: InputFile;
  try {
    // through the input gate (input-files.ts): never a FIFO, a device, a link out of the roots
    file = openInput(path);
  } catch {
    return false;
  }
  try {
    const b = Buffer.alloc(256);
    return isPartialHead(b.toString('utf8', 0, readSync(file.fd, b, 0, b.length, 0)));
  } catch {
    return false;
  } finally {
    file.close();
  }
}

let validator: ValidateFunction | undefined;

/** The first thing wrong with `doc` by the schema; undefined when nothing is. (Ajv is loaded when a partial is first read.) */
async function validate(doc: unknown): Promise<string | undefined> {
  if (!validator) {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    validator = new Ajv2020({ allErrors: false }).compile(readSchema('ranks-partial'));
  }
  if (validator(doc)) return undefined;
  const e = validator.errors![0]!;
  return `${e.instancePath || 'the document'} ${e.message ?? 'is not valid'}`;
}

interface PartialDoc {
  partialVersion: number;
  kinetoscopeVersion: string;
  trace: string;
  summary: Omit<RankSummary, 'infoRank' | 'worldSize' | 'backend' | 'calls'> & {
    infoRank: number | null;
    worldSize: number | null;
    backend: string | null;
    calls: (Omit<CollectiveCall, 'seq' | 'elements' | 'bytes' | 'groupSize'> & { seq: number | null; elements: number | null; bytes: number | null; groupSize: number | null })[];
  };
}

/** Reads and checks a partial; BAD_PARTIAL (one line) when it is not one this kinetoscope wrote. */
export async function readPartial(path: string): Promise<RankPartial> {
  // through the input gate (input-files.ts), which says in one line why a file cannot be read
  const text = readInputText(path);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new KinetoscopeError('BAD_PARTIAL', `${path}: a partial that is not whole JSON (${(e as Error).message}): write it again with ranks --partial`);
  }
  const head = doc as Partial<PartialDoc> | null;
  // the versions first: another version's layout may fail the schema for that reason alone
  if (head && typeof head === 'object' && head.partialVersion !== PARTIAL_VERSION) {
    throw new KinetoscopeError('BAD_PARTIAL', `${path}: partialVersion ${JSON.stringify(head.partialVersion)}, this kinetoscope (${VERSION}) reads partialVersion ${PARTIAL_VERSION}: write the partials again with this version`);
  }
  if (head && typeof head === 'object' && head.kinetoscopeVersion !== VERSION) {
    throw new KinetoscopeError('BAD_PARTIAL', `${path}: written by kinetoscope ${JSON.stringify(head.kinetoscopeVersion)}, this is ${VERSION}: a job is reduced from partials of one version (write them again with this one)`);
  }
  const wrong = await validate(doc);
  if (wrong !== undefined) throw new KinetoscopeError('BAD_PARTIAL', `${path}: not a partial of schema/ranks-partial.schema.json: ${wrong}`);
  const { trace, summary: s } = doc as PartialDoc;
  return {
    trace,
    summary: {
      infoRank: s.infoRank ?? undefined,
      worldSize: s.worldSize ?? undefined,
      ...(s.ignoredInfo !== undefined ? { ignoredInfo: s.ignoredInfo } : {}),
      backend: s.backend ?? undefined,
      originNs: s.originNs,
      steps: s.steps,
      calls: s.calls.map((c) => ({ ...c, seq: nanIfNull(c.seq), elements: nanIfNull(c.elements), bytes: nanIfNull(c.bytes), groupSize: nanIfNull(c.groupSize) })),
      ...totalsOf(s),
    },
  };
}
