/**
 * Every reference the code and its help make is to a file in this repository: no comment or help
 * text points to research notes or a brief kept elsewhere; every `docs/NAME.md` cited exists;
 * every source file that names a reading (S1–S16) cites docs/readings.md, which defines each of
 * them; and every section of docs/readings.md cited by its title ("HTA's critical path") is one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_DIR } from '../helpers/paths.js';

const ROOT = join(TEST_DIR, '..');
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? (f === 'fixtures' ? [] : walk(p)) : /\.(ts|mjs|md|json)$/.test(f) ? [p] : [];
  });
const FILES = [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'test')), ...walk(join(ROOT, 'scripts')), ...walk(join(ROOT, 'docs')), ...walk(join(ROOT, 'schema')), join(ROOT, 'README.md')];
const text = new Map(FILES.map((f) => [relative(ROOT, f), readFileSync(f, 'utf8')]));
const THIS = relative(ROOT, import.meta.filename);
const READINGS = readFileSync(join(ROOT, 'docs/readings.md'), 'utf8');

describe('references stay inside the repository', () => {
  it('no file cites research notes or a brief kept outside it', () => {
    const outside = [...text].filter(([f, t]) => f !== THIS && /\bresearch\/[\w-]+\.md|\bBRIEF\b/.test(t)).map(([f]) => f);
    expect(outside).toEqual([]);
  });

  it('every docs/NAME.md cited exists', () => {
    const missing = [...text].filter(([f]) => f !== THIS).flatMap(([f, t]) => [...t.matchAll(/\bdocs\/([\w-]+\.md)/g)].map((m) => m[1]!).filter((d) => !existsSync(join(ROOT, 'docs', d))).map((d) => `${f}: docs/${d}`));
    expect(missing).toEqual([]);
  });

  it('every source file that names a reading cites docs/readings.md, which defines S1 to S16', () => {
    for (let n = 1; n <= 16; n++) expect(READINGS, `S${n}`).toMatch(new RegExp(`^### S${n} — `, 'm'));
    const uncited = [...text].filter(([f, t]) => f.startsWith('src/') && /\bS(1[0-6]|[1-9])\b/.test(t) && !t.includes('docs/readings.md')).map(([f]) => f);
    expect(uncited).toEqual([]);
  });

  it('every section of docs/readings.md cited by its title is one', () => {
    const headings = new Set([...READINGS.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!));
    const cited = [...text].flatMap(([f, t]) => [...t.matchAll(/docs\/readings\.md, "([^"]+)"/g)].map((m) => [f, m[1]!] as const));
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(([, title]) => !headings.has(title))).toEqual([]);
  });
});
