/**
 * `--et FILE` on `fusion`, `explain` and `diff` (and their MCP tools): torch's execution trace of
 * the same run (`torch.profiler.ExecutionTraceObserver`), read once (ingest/execution-trace.ts),
 * joined to the trace it belongs to by Record function id (model/op-tensors.ts), and attached to
 * that trace's model, so that the analyses' producer → consumer links stand on tensor ids.
 *
 * Given once per trace: with two traces (diff, --vs), each ET is joined to the trace whose ops it
 * matches; an ET that matches none is ET_MISMATCH, two for one trace BAD_ARGUMENT.
 */
import { basename } from 'node:path';
import { DiagnosticSink, type Diagnostic } from '../core/diagnostics.js';
import { isKinetoscopeError, KinetoscopeError } from '../core/errors.js';
import { inertText } from '../core/inert-text.js';
import { readExecutionTrace } from '../ingest/execution-trace.js';
import { joinExecutionTrace, withOpTensors } from '../model/op-tensors.js';
import type { TraceModel } from '../model/trace-model.js';
import type { OptionSpec } from './command-spec.js';
import { withInput } from './input-files.js';

export const ET_OPTION_HELP =
  "torch's execution trace of the same run (torch.profiler.ExecutionTraceObserver; .json or .json.gz): each op's tensors by id, " +
  "joined to the trace by Record function id, so that producer → consumer links are facts (or are refused) instead of likely; once per trace";

/** The `--et <file>` option of a command's spec: repeatable (once per trace), a file an MCP call's roots hold. */
export const ET_OPTION = { flags: '--et <file>', description: ET_OPTION_HELP, repeat: true, path: true } as const satisfies OptionSpec;

/** What `--json` says of each execution trace used. */
export interface EtAttachment {
  readonly file: string;
  /** Which trace it was joined to (the label the command gives it: TRACE, BEFORE, AFTER, a path). */
  readonly trace: string;
  readonly nodes: number;
  /** The trace's ops with a Record function id, and how many an ET node matched. */
  readonly recordedOps: number;
  readonly matchedOps: number;
  readonly truncated: boolean;
  readonly diagnostics: readonly Diagnostic[];
}

/** Joined models kept per model and ET file (device, inode, size, time), for the MCP server's repeated calls. */
const joined = new WeakMap<TraceModel, Map<string, { model: TraceModel; attachment: Omit<EtAttachment, 'trace'> }>>();

/**
 * The models with each ET in `paths` attached to the one it belongs to (`traces`: label and model,
 * in the order tried). Returns the models in the same order and what was attached.
 */
export async function attachExecutionTraces(
  traces: readonly { readonly label: string; readonly model: TraceModel }[],
  paths: readonly string[],
): Promise<{ models: TraceModel[]; attached: EtAttachment[] }> {
  const models = traces.map((t) => t.model);
  const attached: EtAttachment[] = [];
  const taken = new Set<number>();
  for (const path of paths) {
    // Through the input gate (input-files.ts): opened and checked, then read from what was opened.
    await withInput(path, async (file) => {
      const key = `${file.dev}:${file.ino}:${file.size}:${file.mtimeMs}`;
      let firstMismatch: KinetoscopeError | undefined;
      let et: Awaited<ReturnType<typeof readExecutionTrace>> | undefined;
      let sink: DiagnosticSink | undefined;
      for (let i = 0; i < traces.length; i++) {
        const base = traces[i]!.model;
        let found = joined.get(base)?.get(key);
        if (!found) {
          if (!et) {
            sink = new DiagnosticSink();
            et = await readExecutionTrace(file.readPath, { diagnostics: sink });
          }
          try {
            const table = joinExecutionTrace(base, et, `the execution trace ${basename(path)}`);
            found = { model: withOpTensors(base, table), attachment: { file: path, nodes: et.nodes.length, recordedOps: table.withId, matchedOps: table.matched, truncated: et.truncated, diagnostics: sink!.list() } };
            let byKey = joined.get(base);
            if (!byKey) joined.set(base, (byKey = new Map()));
            byKey.set(key, found);
          } catch (e) {
            if (!isKinetoscopeError(e) || e.code !== 'ET_MISMATCH') throw e;
            firstMismatch ??= new KinetoscopeError('ET_MISMATCH', traces.length > 1 ? `${e.message} (tried against ${traces.map((t) => t.label).join(' and ')})` : e.message);
            continue;
          }
        }
        if (taken.has(i)) throw new KinetoscopeError('BAD_ARGUMENT', `two execution traces given for ${traces[i]!.label}: --et once per trace`);
        models[i] = found.model;
        attached.push({ ...found.attachment, file: path, trace: traces[i]!.label });
        taken.add(i);
        return;
      }
      throw firstMismatch!;
    });
  }
  return { models, attached };
}

/** One stderr line per ET diagnostic (text mode): the ET is not the trace, so its repairs are said apart. */
export function etDiagnosticLines(attached: readonly EtAttachment[]): string[] {
  return attached.flatMap((a) => a.diagnostics.map((d) => inertText(`${basename(a.file)}: ${d.severity}: ${d.code}: ${d.message}`)));
}
