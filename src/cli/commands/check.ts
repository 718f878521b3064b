/** `kinetoscope check TRACE --expect FILE`: expectations written before looking, checked against the trace (exit 1 on a mismatch); `--write-expect FILE` writes what the trace shows. */
import { basename } from 'node:path';
import { checkExpectations, deriveExpectations } from '../../analyses/compare/expectations.js';
import { choosePrimaryScope, scopeLabel } from '../../analyses/host/scopes.js';
import { KinetoscopeError } from '../../core/errors.js';
import { checkJson, renderCheck } from '../../report/check-view.js';
import { EXPECTATION_KEY_HELP, parseExpectationsYaml, stringifyExpectations } from '../../report/expectations-file.js';
import { checkTarget, writeTextSafely } from '../safe-write.js';
import { defineCommand, FORCE_OPTION, TRACE_ARGUMENT } from '../command-spec.js';
import { diagnosticsForJson, EXIT_OK, openTrace, printJson, writeErr, writeOut } from '../common.js';
import { readInputText } from '../input-files.js';
import { inertText } from '../../core/inert-text.js';

const width = Math.max(...Object.keys(EXPECTATION_KEY_HELP).map((k) => k.length));
const KEYS_HELP = `
Expectations file (YAML); every count is per instance of the scope:
${Object.entries(EXPECTATION_KEY_HELP)
  .map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)
  .join('\n')}

Example (the article's eager GeGLU MLP):
  per: mlp_fwd
  kernels: 5
  gemms: 3
  absent-ops: [aten::add]
  ops: {aten::linear: 3, aten::gelu: 1}
  views-launch-nothing: true

GPU idle and verdict, as \`kinetoscope steps\` computes them: the share of the instance's span
on the host in which no kernel, copy or memset ran on the GPU (GPU work running past the
span is not stretched into it); gpu-bound when the GPU is busy at least half of the span,
overhead-bound when idle more than half, no-gpu-work when nothing ran; unknown when the trace
file is truncated (no verdict expectation holds then). GEMM kernels: those
owned by a GEMM op (mm, addmm, bmm, … as \`kinetoscope gemm\` finds them) or named as one.
Step time: the step's (or annotation's) duration on the host.

kernel-matching patterns are JavaScript regular expressions held to a subset that cannot
backtrack catastrophically: no quantifier on a group holding a quantifier or an alternation
((a+)+, (a|ab)*), no backreferences, at most 4 unbounded quantifiers and 1000 characters.
A key written twice in one mapping is an error; keys such as __proto__ are names like any other.

Exit status: 0 every expectation holds; 1 one or more do not (each shown as expected vs
seen); 2 a bad trace or a bad expectations file (the line at fault is named).`;

export const spec = defineCommand({
  name: 'check',
  summary: 'a trace against expectations written before looking (exit 1 on a miss)',
  description: 'check a trace against expectations written before looking (exit 1 on a mismatch), or write a starting expectations file',
  arguments: { trace: TRACE_ARGUMENT },
  options: {
    expect: { flags: '--expect <file>', description: 'the expectations file (YAML) to check the trace against', path: true },
    writeExpect: { flags: '--write-expect <file>', description: 'write what the trace shows as an expectations file (- for standard output)', tool: false },
    force: { ...FORCE_OPTION, tool: false },
    per: {
      flags: '--per <scope>',
      description: 'with --write-expect: the scope (annotation name, "step" or "trace"); default: the one top-level annotation holding most of the GPU work, else steps, else the whole trace',
      tool: false,
    },
  },
  definitions: KEYS_HELP,
  document: async () => (await import('../../report/documents/check.js')).checkDocument,
  tool: { rows: ['/instances'] },
  library: [{ from: 'analyses/compare/expectations', names: ['checkExpectations', 'deriveExpectations'] }],
  async run({ trace }, opts) {
    if ((opts.expect === undefined) === (opts.writeExpect === undefined)) {
      throw new KinetoscopeError('BAD_ARGUMENT', 'give either --expect FILE (check) or --write-expect FILE (write one)');
    }
    if (opts.expect !== undefined) {
      if (opts.per !== undefined) throw new KinetoscopeError('BAD_ARGUMENT', '--per goes with --write-expect; with --expect the file says per: …');
      const file = opts.expect;
      const expectations = parseExpectationsYaml(await readText(file), file);
      const model = await openTrace(trace);
      const result = checkExpectations(model, expectations);
      return {
        json: () => ({ ...checkJson(result), diagnostics: diagnosticsForJson(model) }),
        text: (c) => renderCheck(result, { file: basename(file), pass: c.green, fail: c.red, dim: c.dim }),
        diagnostics: [model],
        failed: !result.ok,
      };
    }
    const out = opts.writeExpect!;
    const safe = { kind: 'expectations' as const, inputs: [trace], force: opts.force };
    if (out !== '-') checkTarget(out, safe);
    const model = await openTrace(trace);
    const per = opts.per ?? scopeLabel(choosePrimaryScope(model));
    const derived = deriveExpectations(model, per);
    const yamlText = stringifyExpectations(derived, trace === '-' ? 'standard input' : basename(trace));
    if (out === '-') writeOut(yamlText);
    else {
      await writeTextSafely(out, yamlText, safe);
      if (opts.json) printJson({ written: out, per, expectations: derived.expectations, notes: derived.notes });
      else writeErr(`wrote ${out} (per ${per})${derived.notes.length ? `; not written: ${inertText(derived.notes.join('; '))}` : ''}\n`);
    }
    return EXIT_OK;
  },
});

/** The expectations file, through the gate (input-files.ts): a regular file, opened before it is read. */
async function readText(file: string): Promise<string> {
  try {
    return readInputText(file);
  } catch (e) {
    if (e instanceof KinetoscopeError) throw new KinetoscopeError(e.code, `the expectations file: ${e.message}`);
    throw e;
  }
}
