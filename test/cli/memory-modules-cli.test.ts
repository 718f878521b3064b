/**
 * `memory`, `modules` and the memory columns of `summary` as a user meets them: the command line
 * (test/helpers/cli.ts) on gpt2_train_mem (profile_memory, with_stack) and on a trace with neither, JSON with the keys
 * the issue names, equal to torch's oracle (memory columns) and to the raw events (peak).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { h200Trace, loadOracle, loadRawJson } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { cutPathStart } from '../../src/report/format.js';
import { TEST_DIR } from '../helpers/paths.js';

describe('memory / modules / summary --memory on the command line', () => {
  it('memory --json: the keys the issue lists, the peak equal to the maximum Total Allocated', async () => {
    const r = await runCli(['memory', h200Trace('gpt2_train_mem'), '--json']);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    const cuda = doc.devices.find((d: { device: string }) => d.device === 'cuda:0');
    for (const k of ['device', 'peakAllocatedBytes', 'peakAtUs', 'peakReservedBytes', 'byOp']) expect(cuda).toHaveProperty(k);
    for (const g of cuda.byOp) expect(Object.keys(g)).toEqual(['op', 'bytes', 'count']);
    const recs = loadRawJson(h200Trace('gpt2_train_mem')).traceEvents.filter((e) => e['name'] === '[memory]' && (e['args'] as Record<string, number>)['Device Type'] === 1);
    expect(cuda.peakAllocatedBytes).toBe(Math.max(...recs.map((e) => (e['args'] as Record<string, number>)['Total Allocated']!)));
    expect(cuda.peakReservedBytes).toBe(Math.max(...recs.map((e) => (e['args'] as Record<string, number>)['Total Reserved']!)));
  });

  it("summary --json carries torch's four memory columns, equal to the oracle", async () => {
    const r = await runCli(['summary', h200Trace('gpt2_train_mem'), '--json']);
    expect(r.status).toBe(0);
    const mm = JSON.parse(r.stdout).ops.find((o: { name: string; device: string }) => o.name === 'aten::mm' && o.device === 'cpu');
    const torch = loadOracle('gpt2_train_mem').key_averages.find((k) => k.key === 'aten::mm')! as unknown as Record<string, number>;
    expect([mm.selfCpuMemoryBytes, mm.cpuMemoryBytes, mm.selfDeviceMemoryBytes, mm.deviceMemoryBytes]).toEqual([
      torch['self_cpu_memory_usage'],
      torch['cpu_memory_usage'],
      torch['self_device_memory_usage'],
      torch['device_memory_usage'],
    ]);
    expect(mm.deviceMemoryBytes).toBeGreaterThan(0);
    // The document, memory columns included, validates against summary's schema.
    const ajv = new Ajv2020({ allErrors: true });
    ajv.addKeyword('x-maps');
    const validate = ajv.compile(JSON.parse(readFileSync(join(TEST_DIR, '../schema/summary.schema.json'), 'utf8')));
    expect(validate(JSON.parse(r.stdout)), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });

  it('summary --memory shows the columns; without it they are not read', async () => {
    expect((await runCli(['summary', h200Trace('gpt2_train_mem'), '--memory', '--limit', '3'])).stdout).toContain('Self dev mem');
    expect((await runCli(['summary', h200Trace('gpt2_train_mem'), '--limit', '3'])).stdout).not.toContain('Self dev mem');
  });

  it('modules and summary --group-by module print the tree; --json has its paths', async () => {
    const r = await runCli(['modules', h200Trace('gpt2_train_mem'), '--depth', '1']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Each row sums all calls of the module \(Calls\)[^\n]*\nModule\s+Calls/);
    expect(r.stdout).toContain('  GPT2Model_0');
    const flat = await runCli(['summary', h200Trace('gpt2_train_mem'), '--group-by', 'module', '--wide']);
    expect(flat.stdout).toContain('GPT2LMHeadModel_0/GPT2Model_0/GPT2Block_0/GPT2Attention_0');
    expect(flat.stdout).not.toContain('By class'); // the flat view is the module rows alone
    const asJson = await runCli(['summary', h200Trace('gpt2_train_mem'), '--group-by', 'module', '--json']);
    expect([asJson.status, asJson.stderr.split(':')[1]?.trim()]).toEqual([2, 'BAD_ARGUMENT']);
    const doc = JSON.parse((await runCli(['modules', h200Trace('gpt2_train_mem'), '--json'])).stdout);
    expect(doc.status).toBe('ok');
    expect(doc.modules[0]).toMatchObject({ path: 'GPT2LMHeadModel_0', parent: null, calls: 3 });
  });

  it('a trace without python frames or memory records: one line each, exit 0', async () => {
    const m = await runCli(['modules', h200Trace('linear')]);
    expect(m.status).toBe(0);
    expect(m.stdout.trim().split('\n')).toHaveLength(1);
    expect(m.stdout).toContain('with_stack=True');
    const mem = await runCli(['memory', h200Trace('linear')]);
    expect(mem.status).toBe(0);
    expect(mem.stdout.trim().split('\n')).toHaveLength(1);
    expect(mem.stdout).toContain('profile_memory=True');
  });

  it('module paths are cut from the left, so the leaf shows (memory\'s modules table; --wide uncut)', async () => {
    const path = 'GPT2LMHeadModel_0/GPT2Model_0/GPT2Block_0/GPT2MLP_0/NewGELUActivation_0'; // 71 characters, past the column's 70
    const cut = (await runCli(['memory', h200Trace('gpt2_train_mem')])).stdout;
    expect(cut).toContain(`…${path.slice(path.indexOf('/GPT2Model_0'))} `);
    expect(cut).not.toMatch(/NewGELUActivation…/);
    expect((await runCli(['memory', h200Trace('gpt2_train_mem'), '--wide'])).stdout).toContain(`${path} `);
    expect(cutPathStart('a/b/c', 10)).toBe('a/b/c');
    expect(cutPathStart('root_0/middle_0/leaf_0', 12)).toBe('…/leaf_0'); // at a slash: 'e_0/leaf_0' is cut to its leaf
    expect(cutPathStart('root_0/averyveryverylongleaf_0', 12)).toBe('…ylongleaf_0'); // no slash in the tail's first half
  });
});
