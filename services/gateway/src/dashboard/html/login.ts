import { DashboardTexts as T } from '@pix/contracts';
import { html } from '../../pages/html';
import { layout } from './layout';

/** The sign-in form: the store's API token, posted once over the form (never in a URL). */
export function loginPage(options: { script: string; csrf: string; notice?: string; error?: string }): string {
  const notice = options.notice && html`<p class="notice" role="status">${options.notice}</p>\n`;
  const error = options.error && html`<p class="error" id="login-error" role="alert">${options.error}</p>\n`;
  return layout(
    { title: T.login.title, script: options.script, data: { page: 'login' } },
    html`<section class="card narrow">
<h1>${T.login.title}</h1>
${notice}${error}<p>${T.login.intro}</p>
<form method="post" action="/dashboard/entrar" class="stack">
<input type="hidden" name="csrf" value="${options.csrf}">
<label for="token">${T.login.tokenLabel}</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required${options.error && html` aria-describedby="login-error" aria-invalid="true"`}>
<button type="submit" class="primary">${T.login.submit}</button>
</form>
</section>`,
  );
}
