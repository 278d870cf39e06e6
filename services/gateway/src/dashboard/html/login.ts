import { DashboardTexts as T } from '@pix/contracts';
import { escapeHtml, layout } from './layout';

/** The sign-in form: the store's API token, posted once over the form (never in a URL). */
export function loginPage(options: { csrf: string; notice?: string; error?: string }): string {
  const notice = options.notice ? `<p class="notice" role="status">${escapeHtml(options.notice)}</p>\n` : '';
  const error = options.error
    ? `<p class="error" id="login-error" role="alert">${escapeHtml(options.error)}</p>\n`
    : '';
  return layout(
    { title: T.login.title, data: { page: 'login' } },
    `<section class="card narrow">
<h1>${T.login.title}</h1>
${notice}${error}<p>${T.login.intro}</p>
<form method="post" action="/dashboard/entrar" class="stack">
<input type="hidden" name="csrf" value="${escapeHtml(options.csrf)}">
<label for="token">${T.login.tokenLabel}</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required${options.error ? ' aria-describedby="login-error" aria-invalid="true"' : ''}>
<button type="submit" class="primary">${T.login.submit}</button>
</form>
</section>`,
  );
}
