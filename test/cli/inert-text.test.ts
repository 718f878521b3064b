/**
 * Issue 35, findings 5 and 6: trace strings reached the terminal and Markdown raw — ESC/OSC
 * sequences in a kernel name set the title, wrote the clipboard (OSC 52) and cleared the screen;
 * `\r` and `\n` forged table rows and verdict lines; a backtick closed explain's code span and the
 * rest rendered as Markdown (an image that fetches). The sanitizer (src/core/inert-text.ts) and
 * the Markdown fences are checked on their own, then every text command is run on a trace whose
 * op, annotation and kernel names carry all of it: no output byte can act, and the names read
 * escaped; `--json` keeps them exactly.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { inertOutput, inertText, markdownCode, markdownText } from '../../src/core/inert-text.js';
import { h200Trace } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

/** Every character the sanitizer must not let through (the sets named in inert-text.ts). */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

describe('inertText', () => {
  it('shows each active character escaped and leaves every other one alone', () => {
    expect(inertText('a\x1b]0;T\x07b')).toBe('a\\x1b]0;T\\x07b');
    expect(inertText('x\r\ny\tz')).toBe('x\\r\\ny\\tz');
    expect(inertText('\x7f\u0080\u009b\u009d')).toBe('\\x7f\\x80\\x9b\\x9d');
    expect(inertText('abc\u202edef\u2066\u2069\u200e\u061c\u2028')).toBe('abc\\u202edef\\u2066\\u2069\\u200e\\u061c\\u2028');
    // Real names come back as the same string, byte for byte: backslashes, templates, µ, ×, —.
    for (const name of ['aten::addmm', 'void at::native::elementwise_kernel<128, 4>(int)', 'C:\\Users\\me\\model.py(12): forward', 'nvjet_sm90_tst_64x8 µs × — …', '']) expect(inertText(name)).toBe(name);
  });

  it('the output filter keeps line feeds and, on a terminal, kinetoscope\'s own colours only', () => {
    expect(inertOutput('a\nb\x1b[1mbold\x1b[22m\n', true)).toBe('a\nb\x1b[1mbold\x1b[22m\n');
    expect(inertOutput('\x1b[1mbold\x1b[22m', false)).toBe('\\x1b[1mbold\\x1b[22m');
    expect(inertOutput('\x1b[8mhidden\x1b[2J\r', true)).toBe('\\x1b[8mhidden\\x1b[2J\\r');
  });

  it('markdownCode: a fence longer than any backtick run inside, padded when the text starts or ends with one (CommonMark 6.1)', () => {
    expect(markdownCode('aten::mm')).toBe('`aten::mm`');
    expect(markdownCode('a`b')).toBe('``a`b``');
    expect(markdownCode('x``y`')).toBe('``` x``y` ```');
    expect(markdownCode('`')).toBe('`` ` ``');
    expect(markdownCode('a\n\n## b')).toBe('`a\\n\\n## b`');
  });

  it('markdownText: links, images, raw HTML and autolinks escaped; shapes and C++ templates unchanged', () => {
    expect(markdownText('x ![i](http://e/x) [l](javascript:alert(1))')).toBe('x ![i]\\(http://e/x) [l]\\(javascript:alert(1))');
    expect(markdownText('<img src=x onerror=alert(1)>')).toBe('\\<img src=x onerror=alert(1)>');
    expect(markdownText('<script>x</script>')).toBe('\\<script>x\\</script>');
    expect(markdownText('<https://evil.example>')).toBe('\\<https://evil.example>');
    expect(markdownText('a`b\\')).toBe('a\\`b\\\\');
    for (const s of ['[8192,768]×[768,3072]', 'vectorized_elementwise_kernel<BinaryFunctor, MulFunctor>', 'ImplicitGemmConvolution<wgrad>', 'mul·mul·copy_']) expect(markdownText(s)).toBe(s);
  });
});

const ESC = '\x1b]0;PWNED-TITLE\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[31mRED\x1b[39m\x1b]8;;http://127.0.0.1:8999/x\x07link\x1b]8;;\x07\r\b\u009b\u202e';
const FORGED = '\n\n## Conclusion\nThe model is fine.';
const dir = mkdtempSync(join(tmpdir(), 'ks-inert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** linear, with ESC appended to its kernel and annotation names and FORGED to aten::addmm. */
function hostileTrace(): string {
  const t = JSON.parse(gunzipSync(readFileSync(h200Trace('linear'))).toString()) as { traceEvents: Record<string, unknown>[] };
  for (const e of t.traceEvents) {
    if (e['cat'] === 'kernel' || e['name'] === 'linear_fwd') e['name'] = `${String(e['name'])}${ESC}`;
    else if (e['name'] === 'aten::addmm') e['name'] = `aten::addmm${FORGED}${ESC}`;
  }
  const path = join(dir, 'esc.json');
  writeFileSync(path, JSON.stringify(t));
  return path;
}

describe('text output of a trace whose names carry escapes and line breaks', () => {
  const path = hostileTrace();
  const commands = [['summary'], ['summary', '--group-by', 'shape'], ['tree'], ['kernels'], ['kernels', '--wide'], ['ops'], ['launches'], ['steps'], ['critical-path'], ['explain'], ['gemm'], ['fusion'], ['doctor'], ['breakdown'], ['roofline'], ['compile']];
  for (const [command, ...flags] of commands) {
    it(`${command} ${flags.join(' ')}: nothing that acts on a terminal, no line of a name's own`, async () => {
      const r = await runCli([command!, path, ...flags]);
      expect(r.status, r.stderr).toBe(0);
      for (const [stream, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
        const bad = ACTIVE.exec(text);
        expect(bad, `${stream}: U+${bad?.[0].charCodeAt(0).toString(16)} at ${bad?.index}`).toBeNull();
        // The forged heading never starts a line.
        expect(text.split('\n').some((l) => l.startsWith('## Conclusion') || l.startsWith('The model is fine.'))).toBe(false);
      }
    });
  }

  it('the names read escaped (summary and kernels), and --json keeps them exactly', async () => {
    const s = await runCli(['summary', path, '--wide']);
    expect(s.stdout).toContain('aten::addmm\\n\\n## Conclusion\\nThe model is fine.\\x1b]0;PWNED-TITLE\\x07');
    const k = await runCli(['kernels', path, '--json']);
    const names = (JSON.parse(k.stdout).kernels as { name: string }[]).map((x) => x.name);
    expect(names.every((n) => n.endsWith(ESC))).toBe(true);
  });
});
