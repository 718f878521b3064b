/**
 * The README's Quick start install, as a newcomer runs it, into a temporary prefix and offline:
 * this tree packed (`npm pack`: what package.json's "files" put in the tarball, as a fresh
 * clone's `npm ci && npm pack` makes it), installed with `npm install -g --prefix TMP
 * --ignore-scripts`, then `kinetoscope` run by its name from another folder with only the
 * prefix's bin and Node's own folder on PATH — none of the clone's node_modules/.bin.
 *
 * Offline (`--offline`): the dependencies come from npm's cache, which `npm ci` filled. Where
 * the cache lacks one (a machine whose node_modules came some other way), or npm is not there,
 * the test is skipped with one line saying so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../build-once.js';
import { h200Trace, loadOracle } from '../fixtures.js';
import { VERSION, wantedCommands } from '../../src/cli/program.js';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const TMP = mkdtempSync(join(tmpdir(), 'ks-install-'));
const PREFIX = join(TMP, 'prefix');

afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function npm(args: string[], cwd: string) {
  return spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** The README's Quick start: its fenced shell blocks. */
function quickStartBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('install from a clone (README Quick start)', () => {
  it('the Quick start is two shell blocks: the install and a first command, then the test command .ci/run runs', () => {
    const blocks = quickStartBlocks();
    expect(blocks).toHaveLength(2);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(VERSION).toBe(version); // what --version, partials and reports say
    // The install line names the tarball `npm pack` writes, with the flags the test below uses.
    expect(blocks[0]).toContain(`npm ci && npm pack --quiet && npm install -g --prefix ~/.local --ignore-scripts ./kinetoscope-${version}.tgz\n`);
    expect(blocks[0]).toMatch(/^kinetoscope explain test\/fixtures\/traces\/\S+\.pt\.trace\.json\.gz$/m);
    expect(blocks[1]).toBe('npm ci && npm test\n');
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^npm ci --no-audit --no-fund$[\s\S]*^npm test$/m);
  });

  it('`kinetoscope --version` prints the package version and builds no subcommand (it loads none of their code)', () => {
    ensureBuilt();
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(wantedCommands('--version')).toEqual([]);
    expect(wantedCommands('-V')).toEqual([]);
    expect(wantedCommands('summary')).toEqual(['summary']);
    const r = spawnSync(process.execPath, [join(ROOT, 'dist/bin/kinetoscope.js'), '--version'], { encoding: 'utf8' });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, `${version}\n`, '']);
  });

  it('installs into a prefix without a warning, and `kinetoscope summary` runs by name from another folder', (ctx) => {
    ensureBuilt();
    // dist/ is built: the pack's `prepare` would only find it fresh (scripts/build-if-stale.mjs).
    const pack = npm(['pack', '--ignore-scripts', '--pack-destination', TMP, '--json'], ROOT);
    if (pack.error) {
      console.warn(`install test skipped: npm could not be run (${pack.error.message})`);
      return ctx.skip();
    }
    expect(pack.status, pack.stderr).toBe(0);
    const [{ filename, files }] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    expect(quickStartBlocks()[0]).toContain(`./${filename}`);
    const packed = new Set(files.map((f) => f.path));
    expect(packed.has('dist/bin/kinetoscope.js')).toBe(true);
    // The native reader travels in the pack where npm ci built it: nothing is compiled at install.
    expect(packed.has('build/Release/kinetoscope_native.node')).toBe(existsSync(join(ROOT, 'build/Release/kinetoscope_native.node')));

    mkdirSync(PREFIX);
    const install = npm(['install', '-g', '--prefix', PREFIX, '--ignore-scripts', '--offline', '--no-audit', '--no-fund', join(TMP, filename)], TMP);
    if (install.status !== 0 && /ENOTCACHED|only-if-cached/.test(install.stderr)) {
      console.warn('install test skipped: npm\'s cache lacks a dependency of kinetoscope (run `npm ci` online once)');
      return ctx.skip();
    }
    expect(install.status, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/warn/i);
    expect(readdirSync(join(PREFIX, 'bin'))).toEqual(['kinetoscope']);

    const elsewhere = mkdtempSync(join(TMP, 'cwd-'));
    const run = spawnSync('kinetoscope', ['summary', h200Trace('linear'), '--json'], {
      cwd: elsewhere,
      encoding: 'utf8',
      env: { PATH: [join(PREFIX, 'bin'), dirname(process.execPath)].join(delimiter), HOME: process.env['HOME'] ?? TMP },
    });
    expect(run.error).toBeUndefined();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    // The installed command reads the trace as torch does: every name's calls are torch's count.
    const ops = (JSON.parse(run.stdout) as { ops: { name: string; device: string; calls: number }[] }).ops;
    const torch = loadOracle('linear').key_averages;
    expect(ops.length).toBe(torch.length);
    for (const k of torch) {
      const op = ops.find((o) => o.name === k.key && o.device === (k.device_type.endsWith('CPU') ? 'cpu' : 'gpu'));
      expect(op?.calls, k.key).toBe(k.count);
    }
  });
});
