/**
 * Markup the pages may send as it is: what `html` makes, or text explicitly marked as markup with
 * `new SafeHtml` (nothing does today). Holding it in a class, not a branded string, means a plain
 * string can only ever reach a page escaped.
 */
export class SafeHtml {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** What a page template takes: text (escaped), markup made by `html`, lists of them, or nothing. */
export type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or a quoted attribute's value: the five characters that could end either. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * The pages' template tag: every interpolation is escaped, except markup that `html` itself made
 * (so templates nest without escaping twice); `null`, `undefined` and `false` render nothing, so
 * `${cond && html`…`}` reads as it means; a list renders its items one after the other.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(text);
}

/** Items with a separator between them, as one piece of markup (`list.join` for templates). */
export function joinHtml(items: readonly HtmlValue[], separator: string): SafeHtml {
  return new SafeHtml(items.map(render).join(escapeHtml(separator)));
}
