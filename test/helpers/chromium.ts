/**
 * A report page opened the way a person opens it: written to a temporary folder and loaded from
 * file:// in Debian's Chromium, driven by playwright-core (which downloads no browser). Every
 * request that is not a file is aborted and recorded, and every console error or page error is
 * kept, so a test can assert the page stayed offline and quiet. Where /usr/bin/chromium is absent
 * the browser tests are skipped with one line saying how to run them (.ci/run installs it on CI).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether Debian's Chromium is there; when it is not, one warning naming `what` is printed (call
 * it once per test file, at load time, and pass the result to `describe.skipIf(!…)`).
 */
export function hasChromium(what: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present) console.warn(`${CHROMIUM} not found: ${what} is skipped (apt-get install chromium runs it).`);
  return present;
}

export interface ReportPage {
  readonly page: Page;
  /** Console errors and uncaught page errors, in the order they came. */
  readonly errors: string[];
  /** URLs the page asked for beyond its own file (all aborted). */
  readonly requests: string[];
  /** Closes the browser and removes the temporary folder. */
  close(): Promise<void>;
}

/**
 * Writes `html` as report.html in a fresh folder under the OS temp dir (named from `prefix`) and
 * opens it in headless Chromium at 1400×1000, scale 1, light scheme; resolves once `goto` has
 * loaded the file (waiting for the page's own readiness is the test's business).
 */
export async function openReportPage(html: string, prefix: string): Promise<ReportPage> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const file = join(dir, 'report.html');
    writeFileSync(file, html);
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: { width: 1400, height: 1000 },
      deviceScaleFactor: 1,
      colorScheme: 'light',
    });
    const errors: string[] = [];
    const requests: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`file://${file}`);
    return { page, errors, requests, close };
  } catch (e) {
    await close();
    throw e;
  }
}
