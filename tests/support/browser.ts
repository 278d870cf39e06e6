import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium: playwright-core downloads no browser of its own. */
const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium, or a failure that says how to get it (never a skipped test). */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: make install adds Debian's chromium (scripts/install-system-packages.sh)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, timeout: 30_000 });
}

/**
 * WCAG contrast of each element's text against the first opaque background behind it; an element
 * the page lacks has ratio 0, so a check of it fails.
 */
const CONTRAST = `(selectors) => {
  const rgba = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  return selectors.map((selector) => {
    const element = document.querySelector(selector);
    if (!element) return { selector, ratio: 0 };
    let behind = element;
    let background = [255, 255, 255, 1];
    while (behind) {
      const color = rgba(getComputedStyle(behind).backgroundColor);
      if (color.length === 3 || color[3] > 0) { background = color; break; }
      behind = behind.parentElement;
    }
    const [a, b] = [luminance(rgba(getComputedStyle(element).color)), luminance(background)].sort((x, y) => y - x);
    return { selector, ratio: (a + 0.05) / (b + 0.05) };
  });
}`;

export async function contrastRatios(page: Page, selectors: string[]): Promise<{ selector: string; ratio: number }[]> {
  return (await page.evaluate(`(${CONTRAST})(${JSON.stringify(selectors)})`)) as { selector: string; ratio: number }[];
}
