import { DashboardTexts } from '@pix/contracts';
import { html } from '../../pages/html';
import { webhooksPage } from './webhooks';

const W = DashboardTexts.webhooks;

describe('the webhooks page of the dashboard', () => {
  const page = webhooksPage({
    script: '/dashboard/assets/dashboard.0123ABCD.js',
    store: { name: 'Loja', csrf: 'csrf-token', active: 'webhooks', livemode: false },
    stats: { since: '2026-11-25T10:00:00.000Z', endpoints: [], truncated: false, read: 0 },
    secrets: null,
  });

  it('names the mode it shows in a banner: test data for a test session', () => {
    expect(page).toContain(
      `<p class="mode mode-test" id="mode" role="note" data-livemode="false"><strong>${DashboardTexts.mode.test}</strong>`,
    );
    expect(page).not.toContain(DashboardTexts.mode.live);
  });

  it('offers the verification snippet in TypeScript, Python and PHP, TypeScript picked first', () => {
    const radios = [...page.matchAll(/<input type="radio" name="sdk-lang" id="lang-(\w+)" value="\1"( checked)?>/g)];
    expect(radios.map(([, lang, checked]) => [lang, Boolean(checked)])).toEqual([
      ['typescript', true],
      ['python', false],
      ['php', false],
    ]);
    for (const [lang, { label }] of Object.entries(W.sdkSnippets)) {
      expect(page).toContain(`<label for="lang-${lang}">${label}</label>`);
    }
  });

  it('shows each snippet HTML-escaped, once', () => {
    for (const [lang, { code }] of Object.entries(W.sdkSnippets)) {
      const shown = `<pre class="snippet" id="snippet-${lang}" data-lang="${lang}"><code>${html`${code}`}</code></pre>`;
      expect(page.split(shown)).toHaveLength(2);
    }
    // The PHP snippet's -> and the quotes come out as entities, never as markup.
    expect(page).toContain('$evento-&gt;event');
    expect(page).toContain('getenv(&#39;PIX_WEBHOOK_SECRET&#39;)');
  });
});
