import type { DashboardScriptTexts, LivePayment, LiveRefund } from '../live-messages';

/** Where the script sends the merchant when the session has ended. */
export const LOGIN = '/dashboard/entrar?motivo=sessao';

/** The texts the server put on the page (the body's data-texts). */
export const TEXTS = JSON.parse(document.body.dataset.texts ?? '{}') as DashboardScriptTexts;

/** An element the page is known to have; a page without it is not the one the script was written for. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
}

export interface Answer<T> {
  status: number;
  body: T & { message: string };
}

/** A JSON action with the session's CSRF token; an ended session goes to the login. */
export async function post<T>(url: string, payload: unknown = {}): Promise<Answer<T>> {
  const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
  const res = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, accept: 'application/json' },
    body: JSON.stringify(payload),
  });
  if (res.status === 401) location.assign(LOGIN);
  return { status: res.status, body: (await res.json()) as Answer<T>['body'] };
}

function setLive(on: boolean): void {
  const live = document.getElementById('live');
  if (!live) return;
  live.dataset.live = on ? 'on' : 'off';
  live.textContent = on ? TEXTS.live.on : TEXTS.live.off;
}

export interface Listeners {
  payment: (update: LivePayment) => void;
  refund?: (update: LiveRefund) => void;
  /** After each (re)connection: events may have been missed while the stream was down. */
  ready: (reconnected: boolean) => void;
}

/** Follows the store's stream (/dashboard/stream), reconnecting as long as the session stands. */
export function follow(listeners: Listeners): void {
  let connections = 0;
  const listen = () => {
    const source = new EventSource('/dashboard/stream');
    source.addEventListener('ready', () => {
      connections += 1;
      setLive(true);
      listeners.ready(connections > 1);
    });
    source.addEventListener('payment', (event) => listeners.payment(JSON.parse(event.data) as LivePayment));
    const onRefund = listeners.refund;
    if (onRefund) source.addEventListener('refund', (event) => onRefund(JSON.parse(event.data) as LiveRefund));
    source.addEventListener('ended', () => {
      source.close();
      location.assign(LOGIN);
    });
    source.addEventListener('error', () => {
      setLive(false);
      if (source.readyState !== EventSource.CLOSED) return;
      // Refused (session over, or too many streams): which one, the session probe tells.
      fetch('/dashboard/sessao', { credentials: 'same-origin' }).then(
        (res) => (res.status === 401 ? location.assign(LOGIN) : setTimeout(listen, 5000)),
        () => setTimeout(listen, 5000),
      );
    });
  };
  if ('EventSource' in window) listen();
}

/** Markup the server rendered (escaped there), parsed in an inert document and adopted here. */
export function serverMarkup(html: string): Document {
  return new DOMParser().parseFromString(html, 'text/html');
}
