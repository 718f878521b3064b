/**
 * Issue 35, finding 12: the report pages carried no Content-Security-Policy, so one slip in their
 * escaping would run a trace's `<script>` or fetch its `<img src>`. Every page (a trace's and a
 * job's) now carries one in a `<meta>` tag: its own inline script allowed by SHA-256 (checked
 * here against node:crypto), nothing loaded from anywhere. In Chromium, from file://, the page
 * still works, and a script and an image planted into it (a slip, simulated) neither run nor
 * fetch.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Base64 } from '../../src/report/html/csp.js';
import { h200Trace } from '../fixtures.js';
import { runCli } from '../helpers/cli.js';
import { hasChromium, openReportPage } from '../helpers/chromium.js';
import { TEST_DIR } from '../helpers/paths.js';

const HAS_CHROMIUM = hasChromium("the report's CSP test in a browser");
const JOB = join(TEST_DIR, 'fixtures/traces/h200-gloo-ranks/ranks_w4_skew5');
const dir = mkdtempSync(join(tmpdir(), 'ks-csp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function page(input: string, name: string): Promise<string> {
  const out = join(dir, name);
  const r = await runCli(['report', input, '-o', out]);
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(out, 'utf8');
}

/** The policy of a page, and the SHA-256 (base64) of each inline executable script, from node:crypto. */
function policyAndScripts(html: string): { policy: string; hashes: string[] } {
  const metas = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)];
  expect(metas).toHaveLength(1);
  const hashes = [...html.matchAll(/<script>([^]*?)<\/script>/g)].map((m) => createHash('sha256').update(m[1]!, 'utf8').digest('base64'));
  return { policy: metas[0]![1]!, hashes };
}

/** A slip in the page's escaping, simulated: a script and an image that would fetch, planted after <body>. */
const SLIP = `<img src="http://127.0.0.1:9/beacon" onerror="document.title='PWNED'"><script>document.title='PWNED'</script>`;

describe('Content-Security-Policy of the report pages', () => {
  it('sha256Base64 agrees with node:crypto (ASCII, multi-byte, block edges)', () => {
    for (const s of ['', 'abc', 'µs × — ☃ 𝄞', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'x'.repeat(1000)]) {
      expect(sha256Base64(s)).toBe(createHash('sha256').update(s, 'utf8').digest('base64'));
    }
  });

  for (const [what, input, name] of [['a trace', h200Trace('linear'), 'linear.html'], ['a job (ranks page)', JOB, 'job.html']] as const) {
    it(`${what}: one policy that allows exactly the page's inline script and loads nothing`, async () => {
      const html = await page(input, name);
      const { policy, hashes } = policyAndScripts(html);
      expect(hashes).toHaveLength(1);
      expect(policy).toBe(`default-src 'none'; script-src 'sha256-${hashes[0]}'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'`);
    });
  }

  it.skipIf(!HAS_CHROMIUM)('in Chromium: the trace page works, the planted script and image neither run nor fetch', async () => {
    const html = (await page(h200Trace('linear'), 'linear-slip.html')).replace('<body>', `<body>${SLIP}`);
    const opened = await openReportPage(html, 'kinetoscope-csp-');
    try {
      await opened.page.waitForSelector('#tl[data-ready="true"]', { timeout: 10_000 });
      expect(await opened.page.title()).toBe('linear.pt.trace.json.gz — kinetoscope report');
      expect(opened.requests).toEqual([]);
      // The only complaints are the policy's refusals of what was planted.
      for (const e of opened.errors) expect(e).toMatch(/Content Security Policy/);
      expect(opened.errors.length).toBeGreaterThan(0);
    } finally {
      await opened.close();
    }
  });

  it.skipIf(!HAS_CHROMIUM)('in Chromium: the ranks page draws, the planted script and image neither run nor fetch', async () => {
    const html = (await page(JOB, 'job-slip.html')).replace('<body>', `<body>${SLIP}`);
    const opened = await openReportPage(html, 'kinetoscope-csp-ranks-');
    try {
      // The page's script sized its canvas: it ran.
      await opened.page.waitForFunction('document.getElementById("rk-canvas").width > 0', undefined, { timeout: 10_000 });
      expect(await opened.page.title()).toBe('ranks_w4_skew5 — kinetoscope ranks');
      expect(opened.requests).toEqual([]);
      for (const e of opened.errors) expect(e).toMatch(/Content Security Policy/);
    } finally {
      await opened.close();
    }
  });
});
