/**
 * `kinetoscope gemm` and `kinetoscope ops` as a user meets them: the JSON documents' keys, the
 * --peaks file (and its errors, exit 2), --list-peaks, as the command line prints them
 * (test/helpers/cli.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { h200Trace, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';

describe('kinetoscope gemm / ops CLI', () => {
  it('gemm --json: device and one entry per GEMM shape with the documented keys', async () => {
    const r = await runCli(['gemm', h200Trace('geglu_mlp'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.device.name).toBe('NVIDIA H200');
    expect(doc.device.peaks.denseTflops.bf16).toBe(989.5);
    expect(doc.gemms).toHaveLength(2);
    for (const g of doc.gemms) {
      expect(Object.keys(g)).toEqual(
        expect.arrayContaining(['op', 'm', 'n', 'k', 'batch', 'dtype', 'flops', 'bytes', 'calls', 'meanUs', 'tflops', 'peakTflops', 'percentOfPeak', 'bound', 'kernel', 'tile']),
      );
      expect(g.flops).toBe(38_654_705_664);
    }
    // the raw trace's mm Input Dims are the rows' shapes
    const raw = (loadRawJson(h200Trace('geglu_mlp')).traceEvents as { name: string; cat?: string; args?: { 'Input Dims'?: number[][] } }[])
      .filter((e) => e.cat === 'cpu_op' && e.name === 'aten::mm')
      .map((e) => JSON.stringify(e.args!['Input Dims']));
    expect(new Set(doc.gemms.map((g: { inputDims: unknown }) => JSON.stringify(g.inputDims)))).toEqual(new Set(raw));
  });

  it('gemm --peaks FILE: measured peaks are used; a bad file is exit 2 with one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kinetoscope-peaks-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ name: 'measured', bf16TFlops: 600, memoryBandwidthGBs: 4000 }));
    const r = await runCli(['gemm', h200Trace('linear'), '--json', '--peaks', good]);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.gemms[0].peakTflops).toBe(600);
    expect(doc.device.peaks.origin).toBe('datasheet+file');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ bf16: 'fast' }));
    const b = await runCli(['gemm', h200Trace('linear'), '--peaks', bad]);
    expect(b.status).toBe(2);
    expect(b.stderr.trim().split('\n')).toHaveLength(1);
    expect(b.stderr).toMatch(/^kinetoscope: BAD_ARGUMENT: --peaks file .*unknown key "bf16"/);
  });

  it('gemm --list-peaks prints the sourced table without a trace', async () => {
    const r = await runCli(['gemm', '--list-peaks', '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.devicePeaks.map((d: { id: string }) => d.id)).toContain('amd-mi300x');
    for (const d of doc.devicePeaks) expect(d.sources[0].url).toMatch(/^https:\/\//);
    expect((await runCli(['gemm'])).status).toBe(2);
  });

  it('ops --json: views, noGpuWork and epilogues with the documented keys', async () => {
    const r = await runCli(['ops', h200Trace('linear'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['schemaVersion', 'views', 'noGpuWork', 'epilogues', 'totals', 'notes', 'diagnostics']);
    expect(Object.keys(doc.views[0])).toEqual(['name', 'calls', 'ofCalls', 'cpuTotalUs', 'selfCpuUs']);
    expect(doc.epilogues[0]).toMatchObject({ op: 'aten::addmm', carried: ['bias'], separateAddKernel: false });
    expect(doc.epilogues[0].statement).toMatch(/the bias is added in the GEMM's epilogue .*; no separate add kernel$/);
    const text = await runCli(['ops', h200Trace('matmul_add')]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/aten::mm \[1024,32\]×\[32,64\]: no bias in the GEMM's epilogue/);
  });
});
