/**
 * The trace's own evidence, newer torch (issue 40 item 8; docs/kineto-format.md §9): a micro
 * fixture per 2026 format element (test/fixtures/micro/README.md), and the reading kinetoscope
 * makes of it. Every expected figure is worked out here from the fixture's raw events
 * (JSON.parse), by small independent readers of the format written for this file; the rules of
 * torch's trace validator are checked the same way on the fixtures that break them and on real
 * captures where they hold (our H200 captures; HTA's, from ../shared, when present).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { computeDoctor, type Finding } from '../../src/analyses/trace/doctor.js';
import { computeTimeline } from '../../src/analyses/trace/timeline.js';
import { loadTrace } from '../../src/load-trace.js';
import { H200_NAMES, HAS_HTA, HTA_DIR, MICRO_DIR, h200Trace, loadModel, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { TEST_DIR } from '../helpers/paths.js';

type Ev = Record<string, any>;
const micro = (f: string) => join(MICRO_DIR, f);
const raw = (path: string): Ev[] => loadRawJson(path).traceEvents as Ev[];
const kernelsOf = (evs: Ev[]) => evs.filter((e) => e['ph'] === 'X' && e['cat'] === 'kernel');
const gpuOf = (evs: Ev[]) => evs.filter((e) => e['ph'] === 'X' && ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e['cat']));

async function json(command: string, ...args: string[]): Promise<Record<string, any>> {
  const r = await runCli([command, ...args, '--json']);
  expect(r.status, `${command} ${args.join(' ')}: ${r.stderr}`).toBeLessThanOrEqual(1);
  return JSON.parse(r.stdout) as Record<string, any>;
}

/** The same document less the keys that name the file (explain's label). */
const unlabelled = (d: Record<string, any>) => JSON.parse(JSON.stringify(d, (k, v) => (k === 'label' ? undefined : v))) as unknown;

const TMP = mkdtempSync(join(tmpdir(), 'kinetoscope-format-2026-'));
/** A copy of a fixture with its events changed (written to a temporary file). */
function variant(file: string, name: string, edit: (doc: Record<string, any>) => void): string {
  const doc = JSON.parse(readFileSync(micro(file), 'utf8')) as Record<string, any>;
  edit(doc);
  const out = join(TMP, name);
  writeFileSync(out, JSON.stringify(doc));
  return out;
}

const ajv = new Ajv2020({ allErrors: true });
ajv.addKeyword('x-maps');
ajv.addKeyword('x-opaque');
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function validates(command: string, doc: unknown): string[] {
  let v = validators.get(command);
  if (!v) validators.set(command, (v = ajv.compile(JSON.parse(readFileSync(join(TEST_DIR, '..', 'schema', `${command}.schema.json`), 'utf8')) as object)));
  return v(doc) ? [] : ajv.errorsText(v.errors, { separator: '\n' }).split('\n');
}

/** Σ of the union of [s, e) intervals. */
function unionLength(iv: [number, number][]): number {
  const s = [...iv].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let cs = -Infinity;
  let ce = -Infinity;
  for (const [a, b] of s) {
    if (a > ce) {
      total += ce - cs > 0 ? ce - cs : 0;
      cs = a;
      ce = b;
    } else ce = Math.max(ce, b);
  }
  return total + (ce - cs > 0 ? ce - cs : 0);
}

/** Per (device, stream) from raw GPU events: activities, span and idle (span less the union of busy time), overlaps by a stream key. */
function rawIdle(evs: Ev[], streamOf: (e: Ev) => number) {
  const by = new Map<string, { device: number; stream: number; iv: [number, number][] }>();
  for (const e of gpuOf(evs)) {
    const k = `${e['pid']}/${streamOf(e)}`;
    if (!by.has(k)) by.set(k, { device: e['pid'], stream: streamOf(e), iv: [] });
    by.get(k)!.iv.push([e['ts'], e['ts'] + e['dur']]);
  }
  return [...by.values()]
    .sort((a, b) => a.device - b.device || a.stream - b.stream)
    .map(({ device, stream, iv }) => {
      const span = Math.max(...iv.map((x) => x[1])) - Math.min(...iv.map((x) => x[0]));
      const sorted = [...iv].sort((a, b) => a[0] - b[0]);
      let overlaps = 0;
      let end = -Infinity;
      for (const [s, e] of sorted) {
        if (s < end) overlaps++;
        end = Math.max(end, e);
      }
      return { device, stream, activities: iv.length, spanUs: span, idleUs: span - unionLength(iv), overlaps };
    });
}

// ------------------------------------------------------------------------------------------------
describe('§9.1 CUDA-graph annotations baked in by export_chrome_trace(cuda_graph_annotations=…)', () => {
  const MOVED = 'graph-annotations-moved-lanes.json';
  const IN_PLACE = 'graph-annotations-in-place.json';
  /** The stream a GPU event ran on, as the exporter states it: original_stream when it moved the event. */
  const realStream = (e: Ev) => (typeof e['args']?.['original_stream'] === 'number' ? e['args']['original_stream'] : e['args']['stream']);

  /** The regions from the raw events: kernels with a graph node id and an annotation name. */
  function rawRegions(file: string) {
    const evs = raw(micro(file));
    const gpu = gpuOf(evs);
    const total = gpu.reduce((s, e) => s + e['dur'], 0);
    const laneNames = new Map<string, string>();
    for (const e of evs) if (e['ph'] === 'M' && e['name'] === 'thread_name') laneNames.set(`${e['pid']}/${e['tid']}`, e['args']['name']);
    const graphed = gpu.filter((e) => typeof e['args']?.['graph node id'] === 'number' && e['args']['graph node id'] !== 0);
    const by = new Map<string, Ev[]>();
    for (const e of graphed) if (typeof e['args']['name'] === 'string') by.set(e['args']['name'], [...(by.get(e['args']['name']) ?? []), e]);
    const regions = [...by].map(([name, list]) => {
      const lanes = new Set<number>();
      for (const e of list) {
        const a = e['args'];
        const lane = typeof a['original_stream'] === 'number' ? a['stream'] : a['annotated_stream'];
        if (typeof lane === 'number') lanes.add(lane);
      }
      const us = list.reduce((s, e) => s + e['dur'], 0);
      return {
        name,
        activities: list.length,
        kernels: new Set(list.map((e) => e['name'])).size,
        totalUs: us,
        share: us / total,
        replays: new Set(list.map((e) => e['args']['correlation'])).size,
        devices: [...new Set(list.map((e) => e['pid']))],
        streams: [...new Set(list.map(realStream))].sort((a, b) => a - b),
        lanes: [...lanes].sort((a, b) => a - b).map((lane) => {
          const n = laneNames.get(`0/${lane}`);
          return { lane, name: n !== undefined && !/^stream \d+ ?$/.test(n) ? n : null };
        }),
      };
    });
    regions.sort((a, b) => b.totalUs - a.totalUs || (a.name < b.name ? -1 : 1));
    return { regions, graphed: graphed.length, annotated: [...by.values()].flat().length, total, annotatedUs: regions.reduce((s, r) => s + r.totalUs, 0) };
  }

  for (const file of [MOVED, IN_PLACE]) {
    it(`${file}: kernels groups the replayed work by the annotation's name, with its streams and lanes`, async () => {
      const want = rawRegions(file);
      const doc = await json('kernels', micro(file));
      expect(doc['graphRegions']).toEqual({ inlineAnnotated: true, graphed: want.graphed, annotated: want.annotated, regions: want.regions });
      expect(validates('kernels', doc)).toEqual([]);
      // each name's regions: the raw kernels of that name that carry an annotation
      for (const k of doc['kernels'] as Ev[]) {
        const named = kernelsOf(raw(micro(file))).filter((e) => e['name'] === k['name'] && typeof e['args']['name'] === 'string' && e['args']['graph node id']);
        if (!named.length) expect(k['graphRegions']).toBeUndefined();
        else expect(k['graphRegions']).toEqual([{ name: named[0]!['args']['name'], calls: named.length }]);
      }
      // (the whole cell: a table fits $COLUMNS, 100 by default, and this cell is wider)
      const columns = process.env['COLUMNS'];
      process.env['COLUMNS'] = '200';
      const text = (await runCli(['kernels', micro(file)]).finally(() => (columns === undefined ? delete process.env['COLUMNS'] : (process.env['COLUMNS'] = columns)))).stdout;
      expect(text).toContain(`CUDA-graph regions (${want.annotated} of ${want.graphed} replayed GPU activities carry an annotation naming their region; cudaGraphInlineAnnotated):`);
      expect(text).toContain('graph: attention×2');
    });

    it(`${file}: doctor's GRAPH_HIDDEN_KERNELS says how much of the replayed work an annotation names`, async () => {
      const want = rawRegions(file);
      const r = computeDoctor(await loadTrace(micro(file)));
      const f = r.findings.find((x) => x.code === 'GRAPH_HIDDEN_KERNELS')!;
      expect(f.count).toBe(want.graphed);
      expect(f.message).toContain(`${want.annotated} of them (${((100 * want.annotatedUs) / want.total).toFixed(1)}% of GPU time) carry a CUDA-graph annotation naming their region`);
    });
  }

  it('a moved kernel is read on its original stream: per-stream idle and overlaps as the streams it ran on, not the display lanes', async () => {
    const evs = raw(micro(MOVED));
    // Read by tid, the display lanes hold work of several streams: lane 7 shows an overlap.
    expect(rawIdle(evs, (e) => e['tid']).find((s) => s.stream === 7)!.overlaps).toBeGreaterThan(0);
    const want = rawIdle(evs, realStream);
    expect(want.map((s) => s.stream)).toEqual([7, 21, 22]);
    for (const file of [MOVED, IN_PLACE]) {
      const b = await json('breakdown', micro(file));
      expect((b['idle'] as Ev[]).map((s) => ({ device: s['device'], stream: s['stream'], activities: s['activities'], spanUs: s['spanUs'], idleUs: s['idleUs'], overlaps: s['overlaps'] }))).toEqual(want);
      const d = computeDoctor(await loadTrace(micro(file)));
      expect(d.findings.filter((f) => f.code === 'OVERLAPPING_KERNELS' || f.code === 'PDL_OVERLAP')).toEqual([]);
    }
  });

  it(`${IN_PLACE}: compile names the regions each replay of the compiled region ran`, async () => {
    const evs = raw(micro(IN_PLACE));
    const byLaunch = new Map<number, Map<string, number>>();
    for (const k of kernelsOf(evs)) {
      const a = k['args'];
      if (!a['graph node id'] || typeof a['name'] !== 'string') continue;
      const m = byLaunch.get(a['correlation']) ?? new Map<string, number>();
      byLaunch.set(a['correlation'], m.set(a['name'], (m.get(a['name']) ?? 0) + 1));
    }
    const launches = evs.filter((e) => e['name'] === 'cudaGraphLaunch').sort((a, b) => a['ts'] - b['ts']);
    const want = launches.map((l) => [...byLaunch.get(l['args']['correlation'])!].map(([name, kernels]) => ({ name, kernels })).sort((a, b) => b.kernels - a.kernels || (a.name < b.name ? -1 : 1)));
    const doc = await json('compile', micro(IN_PLACE));
    expect(validates('compile', doc)).toEqual([]);
    expect((doc['steps'][0]['graphReplays'] as Ev[]).map((g) => g['regions'])).toEqual(want);
    expect((await runCli(['compile', micro(IN_PLACE), '--wide'])).stdout).toContain('attention×1, mlp×1, tp_allreduce×1');
  });

  it('without annotations (torch 2.11) nothing names a region', async () => {
    const doc = await json('kernels', h200Trace('mlp_train_compile_ro'));
    expect(doc['graphRegions']).toBeUndefined();
    expect((doc['kernels'] as Ev[]).some((k) => k['graphRegions'] !== undefined)).toBe(false);
    const compile = await json('compile', h200Trace('mlp_train_compile_ro'));
    const replays = (compile['steps'] as Ev[]).flatMap((s) => s['graphReplays'] as Ev[]);
    expect(replays.length).toBeGreaterThan(0);
    expect(replays.some((g) => 'regions' in g)).toBe(false);
  });
});

// ------------------------------------------------------------------------------------------------
describe("§9.2 Inductor's per-kernel estimates, held against the roofline", () => {
  const FILE = micro('inductor-roofline-estimates.json');
  const evs = raw(FILE);
  /** kinetoscope's GEMM figures from the op's Input Dims (bf16: 2 bytes an element): 2·M·N·K, and the operands, bias and output once. */
  function gemmFigures(op: Ev) {
    const d = op['args']['Input Dims'] as number[][];
    const [a, b, bias] = op['name'] === 'aten::addmm' ? [d[1]!, d[2]!, d[0]!] : [d[0]!, d[1]!, undefined];
    const [m, k] = a as [number, number];
    const n = (b as number[])[1]!;
    return { flops: 2 * m * n * k, bytes: 2 * (m * k + k * n + m * n + (bias ? bias.reduce((p, x) => p * x, 1) : 0)) };
  }
  const kernelOf = (op: Ev) => kernelsOf(evs).find((k) => k['args']['External id'] === op['args']['External id'])!;

  it('each GEMM row carries Inductor’s figures and their ratio to kinetoscope’s; every disagreement is a note naming both', async () => {
    const doc = await json('roofline', FILE);
    expect(validates('roofline', doc)).toEqual([]);
    const ops = evs.filter((e) => e['cat'] === 'cpu_op' && (e['name'] === 'aten::mm' || e['name'] === 'aten::addmm'));
    expect(ops).toHaveLength(3);
    let sentences = 0;
    for (const op of ops) {
      const mine = gemmFigures(op);
      const k = kernelOf(op)['args'];
      const theirs = { flops: k['kernel_flop'] as number, bytes: (k['kernel_num_gb'] as number) * 1e9 };
      const row = (doc['rows'] as Ev[]).find((r) => r['op'] === op['name'] && JSON.stringify(r['inputDims']) === JSON.stringify(op['args']['Input Dims']))!;
      expect(row['flops']).toBe(mine.flops);
      expect(row['bytes']).toBe(mine.bytes);
      expect(row['inductor']['flops']).toBe(theirs.flops);
      expect(row['inductor']['bytes']).toBeCloseTo(theirs.bytes, 3);
      expect(row['inductor']['bound']).toBe(k['roofline_bound']);
      expect(row['inductor']['flopsRatio']).toBeCloseTo(theirs.flops / mine.flops, 12);
      expect(row['inductor']['bytesRatio']).toBeCloseTo(theirs.bytes / mine.bytes, 12);
      // kinetoscope's bound: its intensity against the H200's ridge (989.5 TFLOP/s bf16 ÷ 4.8 TB/s, the datasheet figures the device line prints)
      const ridge = 989.5e12 / 4.8e12;
      const ownBound = mine.flops / mine.bytes < ridge ? 'memory' : 'compute';
      expect(row['bound']).toBe(ownBound);
      const expected: string[] = [];
      if (Math.abs(theirs.bytes / mine.bytes - 1) > 0.01) {
        const mb = (x: number) => `${(x / 1e6).toPrecision(4)} MB`;
        expected.push(`kernel_num_gb gives ${mb(theirs.bytes)} moved per call, kinetoscope counts ${mb(mine.bytes)} (Inductor ÷ kinetoscope = ${(theirs.bytes / mine.bytes).toPrecision(3)})`);
      }
      if (k['roofline_bound'] !== ownBound) {
        expected.push(`roofline_bound says ${k['roofline_bound']}-bound (intensity ${(k['arithmetic_intensity'] as number).toPrecision(4)} FLOP/B), kinetoscope ${ownBound}-bound (intensity ${(mine.flops / mine.bytes).toPrecision(4)} FLOP/B`);
      }
      expect(row['inductor']['disagreements']).toHaveLength(expected.length);
      for (const [i, s] of expected.entries()) expect(row['inductor']['disagreements'][i]).toContain(s);
      sentences += expected.length;
    }
    // one row agrees on every figure, so the three rows give three sentences
    expect(sentences).toBe(3);
    for (const r of doc['rows'] as Ev[]) for (const s of r['inductor']['disagreements']) expect(doc['notes']).toContain(s);
  });

  it("the estimate on Inductor's launch op (named after its kernel) is read for that kernel, outside the table", async () => {
    const outside = kernelsOf(evs).filter((k) => {
      const op = evs.find((e) => e['cat'] === 'cpu_op' && e['args']['External id'] === k['args']['External id']);
      return !['aten::mm', 'aten::addmm'].includes(op?.['name']) && (k['args']['kernel_num_gb'] || (op?.['name'] === k['name'] && op?.['args']['kernel_num_gb']));
    });
    expect(outside).toHaveLength(1);
    const doc = await json('roofline', FILE);
    expect(doc['notes']).toContain(`${outside.length} kernel(s) outside the table carry Inductor's estimates (kernel_flop, kernel_num_gb): not cross-checked`);
  });

  it('a trace without the estimates prints what it printed before: no inductor figures, no note', async () => {
    for (const name of ['linear', 'geglu_mlp_compile']) {
      const doc = await json('roofline', h200Trace(name));
      expect((doc['rows'] as Ev[]).some((r) => 'inductor' in r)).toBe(false);
      expect((doc['notes'] as string[]).some((n) => n.includes('Inductor'))).toBe(false);
    }
  });
});

// ------------------------------------------------------------------------------------------------
describe('§9.3 Stream Sync on its own row (tid = stream + 1,000,000, kineto#1356)', () => {
  const FILE = 'stream-sync-row.json';
  const evs = raw(micro(FILE));
  const syncEv = evs.find((e) => e['cat'] === 'cuda_sync')!;
  /** The same events as Kineto wrote them before the row: the sync on its stream's tid, no sync-row metadata. */
  const before = variant(FILE, 'stream-sync-on-stream.json', (doc) => {
    doc['traceEvents'] = (doc['traceEvents'] as Ev[])
      .filter((e) => !(e['ph'] === 'M' && e['tid'] === syncEv['tid']))
      .map((e) => (e['tid'] === syncEv['tid'] ? { ...e, tid: syncEv['args']['stream'] } : e));
  });

  it('the record belongs to the stream it synchronized, which is no GPU stream of its own', async () => {
    expect(syncEv['tid']).toBe(syncEv['args']['stream'] + 1_000_000);
    const m = await loadTrace(micro(FILE));
    expect(m.syncs.map((s) => ({ name: s.name, device: s.device, stream: s.stream }))).toEqual([{ name: 'Stream Sync', device: syncEv['pid'], stream: syncEv['args']['stream'] }]);
    const streams = [...new Set(gpuOf(evs).map((e) => e['tid']))];
    expect(streams).toEqual([7]);
    expect(((await json('breakdown', micro(FILE)))['idle'] as Ev[]).map((s) => s['stream'])).toEqual(streams);
    expect(computeTimeline(m).tracks.filter((t) => t.kind === 'stream').map((t) => t.label)).toEqual(['GPU 0 stream 7']);
  });

  it('steps, breakdown, doctor, launches and critical-path read it as Kineto wrote it before the row', async () => {
    for (const c of ['steps', 'breakdown', 'doctor', 'launches', 'critical-path', 'summary']) {
      expect(unlabelled(await json(c, micro(FILE))), c).toEqual(unlabelled(await json(c, before)));
    }
  });

  it('critical-path goes through the GPU work the sync waited for: the kernels of its stream that ended before it did', async () => {
    const end = syncEv['ts'] + syncEv['dur'];
    const waited = kernelsOf(evs).filter((k) => k['tid'] === syncEv['args']['stream'] && k['ts'] + k['dur'] <= end);
    const doc = await json('critical-path', micro(FILE));
    const step = (doc['instances'] as Ev[])[0]!;
    expect(step['bounds']['kernelUs']).toBe(waited.reduce((s, k) => s + k['dur'], 0));
    expect(step['gpuActivitiesOnPath']).toBe(waited.length);
  });
});

// ------------------------------------------------------------------------------------------------
describe('§9.4 the kernel priority field (CUDA ≥ 13.1, kineto#1361)', () => {
  const FILE = micro('kernel-priority.json');
  const evs = raw(FILE);
  const byName = new Map<string, Set<number>>();
  for (const k of kernelsOf(evs)) if (typeof k['args']['priority'] === 'number') byName.set(k['name'], (byName.get(k['name']) ?? new Set()).add(k['args']['priority']));

  it('kernels shows each name’s priorities beside its streams, and --json lists them', async () => {
    const doc = await json('kernels', FILE);
    expect(validates('kernels', doc)).toEqual([]);
    for (const k of doc['kernels'] as Ev[]) {
      const p = byName.get(k['name']);
      if (p) expect(k['priorities']).toEqual([...p].sort((a, b) => a - b));
      else expect(k['priorities']).toBeUndefined();
    }
    const nvjet = kernelsOf(evs).filter((k) => k['name'].startsWith('nvjet'));
    const streams = [...new Set(nvjet.map((k) => k['args']['stream']))].sort((a, b) => a - b);
    const prios = [...new Set(nvjet.map((k) => k['args']['priority']))].sort((a, b) => a - b);
    expect((await runCli(['kernels', FILE])).stdout).toContain(`${streams.join(',')} (priority ${prios.join(',')})`);
  });

  it('export and sql carry it as kernels.priority (NULL where absent)', async () => {
    const r = await runCli(['sql', 'SELECT name, priority FROM kernels ORDER BY id', FILE, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const rows = (JSON.parse(r.stdout) as { rows: [string, number | null][] }).rows;
    const want = gpuOf(evs).map((e) => [e['name'], typeof e['args']['priority'] === 'number' ? e['args']['priority'] : null]);
    expect(rows.map((x) => [x[0], x[1]]).sort()).toEqual(want.sort());
  });
});

// ------------------------------------------------------------------------------------------------
describe('§9.5 hardware-counter tracks (pid "GPU n Counters", kineto e8f56bd8)', () => {
  const FILE = 'hardware-counters.json';
  const evs = raw(micro(FILE));
  const stripped = variant(FILE, 'hardware-counters-stripped.json', (doc) => {
    doc['traceEvents'] = (doc['traceEvents'] as Ev[]).filter((e) => e['ph'] !== 'C');
  });
  const COMMANDS = ['summary', 'kernels', 'steps', 'launches', 'breakdown', 'gemm', 'roofline', 'critical-path', 'ops', 'tree', 'compile', 'fusion', 'explain'];

  it('no figure changes: every command prints what it prints on the same events without the counters', async () => {
    for (const c of COMMANDS) expect(unlabelled(await json(c, micro(FILE))), c).toEqual(unlabelled(await json(c, stripped)));
    const [a, b] = [await loadTrace(micro(FILE)), await loadTrace(stripped)];
    expect([a.traceStartNs, a.traceEndNs]).toEqual([b.traceStartNs, b.traceEndNs]);
    expect(a.processes).toEqual(b.processes);
    expect(a.threads).toEqual(b.threads);
    expect(computeTimeline(a).tracks.map((t) => t.label)).toEqual(computeTimeline(b).tracks.map((t) => t.label));
  });

  it('doctor lists the series sampled, with their samples, min, mean and max from the raw events', async () => {
    const counters = evs.filter((e) => e['ph'] === 'C');
    const series = new Map<string, number[]>();
    for (const e of counters) series.set(e['name'], [...(series.get(e['name']) ?? []), e['args']['']]);
    const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(4));
    const f = computeDoctor(await loadTrace(micro(FILE))).findings.find((x) => x.code === 'COUNTER_TRACKS')!;
    expect(f).toMatchObject({ severity: 'info', count: series.size, gpuTimeShare: null });
    for (const [name, v] of series) {
      const mean = v.reduce((s, x) => s + x, 0) / v.length;
      expect(f.message).toContain(`${name} ×${v.length} (min ${fmt(Math.min(...v))}, mean ${fmt(mean)}, max ${fmt(Math.max(...v))})`);
    }
    expect(f.message).toContain(`on 1 track(s): "${counters[0]!['pid']}" (hardware_counters)`);
    const doc = await json('doctor', micro(FILE));
    expect(validates('doctor', doc)).toEqual([]);
  });
});

// ------------------------------------------------------------------------------------------------
describe('§9.6 traces without the top-level WARNING/ERROR arrays (kineto#1460)', () => {
  const WITH = micro('kineto-log-arrays.json');
  const WITHOUT = micro('kineto-no-log-arrays.json');

  it('the arrays are there in one file and not in the other, and neither file draws a word about them', async () => {
    const a = loadRawJson(WITH);
    const b = loadRawJson(WITHOUT);
    expect(Array.isArray(a['WARNING']) && Array.isArray(a['ERROR'])).toBe(true);
    expect('WARNING' in b || 'ERROR' in b).toBe(false);
    for (const file of [WITH, WITHOUT]) {
      const m = await loadTrace(file);
      expect(m.diagnostics).toEqual([]);
      expect(computeDoctor(m).findings).toEqual([]);
      const strict = await runCli(['summary', file, '--strict']);
      expect(strict.status).toBe(0);
      expect(strict.stderr).toBe('');
    }
    for (const c of ['summary', 'kernels', 'steps', 'launches', 'breakdown', 'doctor', 'critical-path', 'explain']) {
      expect(unlabelled(await json(c, WITH)), c).toEqual(unlabelled(await json(c, WITHOUT)));
    }
  });
});

// ------------------------------------------------------------------------------------------------
describe('§9.7 ROCm rocprofiler-sdk: typed metadata read as the string form was', () => {
  const OLD = micro('rocm-rocprofiler-sdk-string-bytes.json');
  const NEW = micro('rocm-rocprofiler-sdk-typed.json');
  const COMMANDS = ['summary', 'kernels', 'launches', 'breakdown', 'doctor', 'gemm', 'roofline', 'critical-path', 'ops', 'tree', 'compile', 'fusion', 'explain'];

  it('the two files differ where kineto#1455 and #1418 say: bytes a number, bandwidth omitted at 0 ns, a module launch’s grid', () => {
    const o = raw(OLD);
    const n = raw(NEW);
    expect(o.filter((e) => e['cat'] === 'cuda_runtime' && 'bytes' in e['args']).every((e) => typeof e['args']['bytes'] === 'string')).toBe(true);
    expect(n.filter((e) => e['cat'] === 'cuda_runtime' && 'bytes' in e['args']).every((e) => typeof e['args']['bytes'] === 'number')).toBe(true);
    expect(o.some((e) => e['args']?.['memory bandwidth (GB/s)'] === 'N/A')).toBe(true);
    expect(n.filter((e) => e['cat'] === 'gpu_memcpy' && e['dur'] === 0).every((e) => !('memory bandwidth (GB/s)' in e['args']))).toBe(true);
  });

  it('every command prints the same, but for the SM efficiency the newly recorded grid makes known', async () => {
    for (const c of COMMANDS) expect(unlabelled(await json(c, NEW)), c).toEqual(unlabelled(await json(c, OLD)));
    const [so, sn] = [await json('steps', OLD), await json('steps', NEW)];
    const strip = (d: Record<string, any>) => JSON.parse(JSON.stringify(d, (k, v) => (k === 'smEfficiency' ? undefined : v))) as unknown;
    expect(strip(sn)).toEqual(strip(so));
    // The TensorBoard plugin's estimate over the step: Σ min(grid blocks ÷ SMs, 1) × duration ÷ the step,
    // a kernel whose grid is not positive (the zeros of a module launch before #1418) left out.
    const smEff = (file: string) => {
      const evs = raw(file);
      const step = evs.find((e) => e['name'] === 'ProfilerStep#1')!;
      const sms = (loadRawJson(file)['deviceProperties'] as Ev[])[0]!['numSms'] as number;
      let area = 0;
      for (const k of kernelsOf(evs)) {
        const blocks = (k['args']['grid'] as number[]).reduce((p, x) => p * x, 1);
        if (blocks > 0) area += Math.min(blocks / sms, 1) * k['dur'];
      }
      return Math.round((area / step['dur']) * 1e4) / 1e4;
    };
    expect(so['steps'][0]['smEfficiency']).toBe(smEff(OLD));
    expect(sn['steps'][0]['smEfficiency']).toBe(smEff(NEW));
    expect(smEff(NEW)).toBeGreaterThan(smEff(OLD));
  });
});

// ------------------------------------------------------------------------------------------------
/**
 * torch's trace validator's six rules, read from the raw events by this file's own code (the
 * rules as pytorch/pytorch#177947 states them; kinetoscope's reading notes where it differs:
 * rule 4 matches the wait's id against the record's correlation alone).
 */
function validatorCounts(evs: Ev[]) {
  const xs = evs.filter((e) => e['ph'] === 'X');
  const kindOf = (e: Ev) => e['args']?.['cuda_sync_kind'];
  const launches = new Map<number, number>();
  for (const e of xs) if ((e['cat'] === 'cuda_runtime' || e['cat'] === 'cuda_driver') && typeof e['args']?.['correlation'] === 'number') launches.set(e['args']['correlation'], e['ts']);
  const gpu = gpuOf(evs);
  const rule1 = gpu.filter((g) => launches.has(g['args']?.['correlation']) && g['ts'] < launches.get(g['args']['correlation'])!).length;
  const waits = xs.filter((e) => kindOf(e) === 'Stream Wait Event' || kindOf(e) === 'Event Sync');
  const rule2 = waits.filter((e) => !(typeof e['args']['wait_on_cuda_event_record_corr_id'] === 'number' && e['args']['wait_on_cuda_event_record_corr_id'] >= 0)).length;
  const streamOf = (e: Ev) => (typeof e['args']?.['stream'] === 'number' ? e['args']['stream'] : e['tid']);
  const streamSyncs = xs.filter((e) => kindOf(e) === 'Stream Sync');
  let rule3 = 0;
  let rule3Late = 0;
  for (const s of streamSyncs) {
    const running = kernelsOf(evs).filter((k) => k['pid'] === s['pid'] && streamOf(k) === s['args']['stream'] && k['ts'] < s['ts'] && s['ts'] < k['ts'] + k['dur']);
    if (running.length) rule3++;
    if (running.some((k) => k['ts'] + k['dur'] > s['ts'] + s['dur'])) rule3Late++;
  }
  const records = new Map<number, number>();
  for (const e of xs) if (/^cudaEventRecord(WithFlags)?(_ptsz)?$/.test(e['name']) && typeof e['args']?.['correlation'] === 'number') records.set(e['args']['correlation'], Math.min(records.get(e['args']['correlation']) ?? Infinity, e['ts']));
  const named = xs.filter((e) => kindOf(e) === 'Stream Wait Event' && e['args']['wait_on_cuda_event_record_corr_id'] >= 0);
  const rule4Future = named.filter((e) => records.has(e['args']['wait_on_cuda_event_record_corr_id']) && records.get(e['args']['wait_on_cuda_event_record_corr_id'])! > e['ts']).length;
  const rule4Missing = named.filter((e) => !records.has(e['args']['wait_on_cuda_event_record_corr_id'])).length;
  const comms = xs.filter((e) => e['name'] === 'record_param_comms');
  const rule5 = comms.filter((e) => ['Collective name', 'dtype', 'In msg nelems', 'Out msg nelems', 'Group size'].some((k) => !(k in (e['args'] ?? {})))).length;
  const seqOps = new Map<number, Set<string>>();
  for (const e of xs) {
    if (!String(e['name']).startsWith('autograd::engine::evaluate_function:') || typeof e['args']?.['Sequence number'] !== 'number') continue;
    seqOps.set(e['args']['Sequence number'], (seqOps.get(e['args']['Sequence number']) ?? new Set()).add(e['name']));
  }
  const rule6 = [...seqOps.values()].filter((s) => s.size > 1).length;
  return { rule1, rule2, rule3, rule3Late, rule4Future, rule4Missing, rule5, rule6, waits: waits.length, streamSyncs: streamSyncs.length, named: named.length, comms: comms.length, sequences: seqOps.size };
}

/** kinetoscope's findings of the validator's rules, as counts comparable with validatorCounts. */
function doctorCounts(findings: readonly Finding[]) {
  const count = (code: string) => findings.find((f) => f.code === code)?.count ?? 0;
  return {
    rule1: count('KERNEL_BEFORE_LAUNCH'),
    rule2: count('EVENT_WAIT_WITHOUT_RECORD_ID'),
    rule3: count('STREAM_SYNC_OVERLAPS_KERNEL'),
    rule4Future: count('STREAM_WAIT_ON_FUTURE_RECORD'),
    rule4Missing: count('STREAM_WAIT_RECORD_NOT_IN_TRACE'),
    rule5: count('COLLECTIVE_METADATA_MISSING'),
    rule6: count('SEQUENCE_NUMBER_SHARED'),
  };
}
const ruleCounts = (c: ReturnType<typeof validatorCounts>) => ({ rule1: c.rule1, rule2: c.rule2, rule3: c.rule3, rule4Future: c.rule4Future, rule4Missing: c.rule4Missing, rule5: c.rule5, rule6: c.rule6 });

describe("§9.8 doctor covers each rule of torch's trace validator, and names it", () => {
  const CASES: [file: string, code: string, rule: number, severity: Finding['severity']][] = [
    ['doctor-kernel-before-launch.json', 'KERNEL_BEFORE_LAUNCH', 1, 'warning'],
    ['validator-event-wait-without-record.json', 'EVENT_WAIT_WITHOUT_RECORD_ID', 2, 'warning'],
    ['validator-stream-sync-overlaps-kernel.json', 'STREAM_SYNC_OVERLAPS_KERNEL', 3, 'warning'],
    ['validator-stream-wait-future-record.json', 'STREAM_WAIT_ON_FUTURE_RECORD', 4, 'warning'],
    ['validator-stream-wait-future-record.json', 'STREAM_WAIT_RECORD_NOT_IN_TRACE', 4, 'info'],
    ['validator-collective-metadata-missing.json', 'COLLECTIVE_METADATA_MISSING', 5, 'info'],
    ['validator-sequence-number-shared.json', 'SEQUENCE_NUMBER_SHARED', 6, 'warning'],
  ];
  for (const [file, code, rule, severity] of CASES) {
    it(`${file} breaks rule ${rule}: ${code}, with the count the raw events give`, async () => {
      const evs = raw(micro(file));
      const want = validatorCounts(evs);
      const r = computeDoctor(await loadTrace(micro(file)));
      expect(doctorCounts(r.findings)).toEqual(ruleCounts(want));
      const f = r.findings.find((x) => x.code === code)!;
      expect(f.severity).toBe(severity);
      expect(f.validatorRule).toBe(rule);
      expect(f.message).toContain(`(torch trace validator rule ${rule}: `);
      const doc = await json('doctor', micro(file));
      expect((doc['findings'] as Ev[]).find((x) => x['code'] === code)!['validatorRule']).toBe(rule);
      expect(validates('doctor', doc)).toEqual([]);
    });
  }

  it('doctor --help defines every code it checks, the new ones and COUNTER_TRACKS included, and marks the validator’s rules', async () => {
    const help = (await runCli(['doctor', '--help'])).stdout;
    const r = computeDoctor(await loadTrace(micro('kineto-no-log-arrays.json')));
    for (const code of [...r.checked, 'COUNTER_TRACKS']) expect(help, code).toContain(code);
    for (const n of [1, 2, 3, 4, 5, 6]) expect(help).toContain(`rule ${n}]`);
  });

  it('rule 3: of the Stream Syncs that start while their kernel runs, one ends before it — a warning — and one after', async () => {
    const want = validatorCounts(raw(micro('validator-stream-sync-overlaps-kernel.json')));
    expect([want.streamSyncs, want.rule3, want.rule3Late]).toEqual([3, 2, 1]);
    const f = computeDoctor(await loadTrace(micro('validator-stream-sync-overlaps-kernel.json'))).findings.find((x) => x.code === 'STREAM_SYNC_OVERLAPS_KERNEL')!;
    expect(f.message).toContain(`${want.rule3} of ${want.streamSyncs} Stream Sync record(s)`);
    expect(f.message).toContain(`${want.rule3Late} of them ends before that kernel does`);
    // the sync row's own fixture: the host waits, ending after the kernel: information only
    const g = computeDoctor(await loadTrace(micro('stream-sync-row.json'))).findings.find((x) => x.code === 'STREAM_SYNC_OVERLAPS_KERNEL')!;
    expect([g.severity, g.count]).toEqual(['info', validatorCounts(raw(micro('stream-sync-row.json'))).rule3]);
  });

  it('every H200 capture holds every rule, and doctor is silent on all six (rule 6 checked on the backward ops of the training captures)', async () => {
    let sequences = 0;
    for (const name of H200_NAMES) {
      const want = validatorCounts(raw(h200Trace(name)));
      expect(ruleCounts(want), name).toEqual({ rule1: 0, rule2: 0, rule3: 0, rule4Future: 0, rule4Missing: 0, rule5: 0, rule6: 0 });
      sequences += want.sequences;
      const r = computeDoctor(await loadModel(h200Trace(name)));
      expect(r.findings.filter((f) => f.validatorRule !== undefined), name).toEqual([]);
    }
    expect(sequences).toBeGreaterThan(0);
  });

  it.skipIf(!HAS_HTA)("HTA's captures with cuda_sync records and collectives: doctor's counts are the raw events' (rules 2–4 hold on alexnet, rule 5 on nccl_data; rule 2 breaks on simple_add)", async () => {
    const files = {
      alexnet: 'critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz',
      simpleAdd: 'critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz',
      eventSync: 'critical_path/cuda_event_sync/event_sync_trace.json.gz',
      multiStream: 'critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz',
      ncclData: 'nccl_parser_config/nccl_data.json.gz',
    };
    const got: Record<string, ReturnType<typeof validatorCounts>> = {};
    for (const [k, f] of Object.entries(files)) {
      const path = join(HTA_DIR, f);
      const want = validatorCounts(raw(path));
      got[k] = want;
      expect(doctorCounts(computeDoctor(await loadModel(path)).findings), k).toEqual(ruleCounts(want));
    }
    // where the rules hold, they were looked at: records of each kind are there
    expect([got['alexnet']!.waits, got['alexnet']!.streamSyncs, got['alexnet']!.named]).toEqual([20, 16, 20]);
    expect(ruleCounts(got['alexnet']!)).toEqual({ rule1: 0, rule2: 0, rule3: 0, rule4Future: 0, rule4Missing: 0, rule5: 0, rule6: 0 });
    expect([got['ncclData']!.comms, got['ncclData']!.rule5]).toEqual([27, 0]);
    expect(got['simpleAdd']!.rule2).toBe(20);
  });
});
