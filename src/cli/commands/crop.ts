/** `kinetoscope crop TRACE --steps A-B -o OUT`: a smaller trace holding only some steps, for Perfetto & co. */
import { cropSelector, parseStepRange, parseWindow, planCrop, type CropRange } from '../../analyses/trace/crop.js';
import { KinetoscopeError } from '../../core/errors.js';
import { SubsetRecording, writeTraceSubset } from '../../ingest/write-subset.js';
import { formatBytes, formatUs } from '../../report/format.js';
import { checkTarget, writeSafely } from '../safe-write.js';
import { redaction } from '../redaction.js';
import { withInput } from '../input-files.js';
import { defineCommand, FORCE_OPTION } from '../command-spec.js';
import { openTrace } from '../common.js';

const HELP = `
Keeps, for the steps (ProfilerStep#N) or the window chosen:
  host events (ops, annotations, runtime/driver calls, python frames, memory records)
  that start inside it; the GPU work those calls launched, even when it runs after the
  window; their ac2g flows; gpu_user_annotation spans of the annotations kept; flows
  (fwdbwd) whose ends all start inside it; every metadata event, the profiler span and
  the header keys, byte for byte. An event that starts before the window (e.g. an
  annotation around all steps) is left out. --window is in µs from the trace start
  (time zero of every other command). The output is gzipped when its name ends in .gz.
The input is read twice (a file, not standard input).
The output is written to a temporary file beside it and renamed into place when whole: an
interrupted or failed crop leaves the target as it was. An existing output is replaced only
when kinetoscope wrote it (a .json.gz crop carries a gzip header comment saying so; a plain
.json crop cannot be told from any trace) — else give --force. The input is never overwritten.`;

export const spec = defineCommand({
  name: 'crop',
  summary: 'a smaller valid trace: some steps or a time window',
  description: 'write a smaller valid trace holding only some profiler steps or a time window (to open a 10 GB trace in Perfetto)',
  arguments: { trace: { description: 'trace file (.json or .json.gz)', path: true } },
  options: {
    steps: { flags: '--steps <range>', description: 'ProfilerStep numbers to keep: N or A-B' },
    window: { flags: '--window <start:end>', description: 'time window to keep, in µs from the trace start' },
    output: { flags: '-o, --output <file>', description: 'where to write the cropped trace (.json or .json.gz)' },
    force: FORCE_OPTION,
  },
  definitions: HELP,
  library: [{ from: 'analyses/trace/crop', names: ['planCrop'] }],
  async run({ trace: path }, opts) {
    if ((opts.steps === undefined) === (opts.window === undefined)) throw new KinetoscopeError('BAD_ARGUMENT', 'give either --steps A-B or --window START:END');
    if (!opts.output) throw new KinetoscopeError('BAD_ARGUMENT', 'give the output file with -o OUT.json.gz');
    if (path === '-') throw new KinetoscopeError('BAD_ARGUMENT', 'crop reads its input twice: give a file, not standard input');
    const range: CropRange = opts.steps !== undefined ? { steps: parseStepRange(opts.steps) } : { windowUs: parseWindow(opts.window!) };
    const safe = { kind: 'crop' as const, inputs: [path], force: opts.force };
    checkTarget(opts.output, safe);
    // The load keeps what the events are chosen by: the input is then read again only to copy.
    const recorded = new SubsetRecording();
    const model = await openTrace(path, { recordSubset: recorded });
    const plan = planCrop(model, range);
    // (read again through the gate: a regular file, opened before it is read)
    const r = await writeSafely(opts.output, safe, (tmp) =>
      withInput(path, (input) => writeTraceSubset(input.readPath, tmp, cropSelector(plan), { outputExists: true, gzip: opts.output!.endsWith('.gz'), recorded, transform: redaction() ? (t) => redaction()!.redact(t) : undefined })),
    );
    const startUs = plan.startNs / 1000;
    const endUs = plan.endNs / 1000;
    const what = plan.steps.length ? `step${plan.steps.length > 1 ? 's' : ''} ${plan.steps[0]}${plan.steps.length > 1 ? `-${plan.steps[plan.steps.length - 1]}` : ''}, ` : '';
    return {
      json: () => ({ output: opts.output, steps: plan.steps, window: { startUs, endUs }, eventsIn: r.eventsIn, eventsOut: r.eventsOut, bytesOut: r.bytesOut }),
      text: () => `wrote ${opts.output}: ${r.eventsOut} of ${r.eventsIn} events (${what}from ${formatUs(startUs)} to ${formatUs(endUs)} after the trace start), ${formatBytes(r.bytesOut)}`,
    };
  },
});
