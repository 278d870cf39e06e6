import { html, joinHtml, SafeHtml } from './html';

describe('the html template tag', () => {
  it('escapes every interpolated text, in text and in attributes', () => {
    const hostile = `<script>alert(1)</script>"'&`;
    expect(html`<p title="${hostile}">${hostile}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;">&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</p>',
    );
  });

  it('nests templates and lists without escaping twice', () => {
    const item = (text: string) => html`<li>${text}</li>`;
    const list = html`<ul>${['a&b', '<i>'].map(item)}</ul>`;
    expect(list.text).toBe('<ul><li>a&amp;b</li><li>&lt;i&gt;</li></ul>');
    expect(html`<div>${list}</div>`.text).toBe('<div><ul><li>a&amp;b</li><li>&lt;i&gt;</li></ul></div>');
  });

  it('renders nothing for null, undefined and false, and numbers as text', () => {
    expect(html`[${null}${undefined}${false}${0}${1.5}]`.text).toBe('[01.5]');
  });

  it('sends as it is only markup that html made or that is explicitly marked safe', () => {
    expect(html`${'<b>x</b>'}`.text).toBe('&lt;b&gt;x&lt;/b&gt;');
    expect(html`${new SafeHtml('<b>x</b>')}`.text).toBe('<b>x</b>');
    expect(String(html`<b>${'&'}</b>`)).toBe('<b>&amp;</b>');
  });

  it('joins items with an escaped separator, and leaves other characters alone', () => {
    expect(joinHtml([html`<td>1</td>`, '<2>'], '\n').text).toBe('<td>1</td>\n&lt;2&gt;');
    expect(html`${'javascript:\u202E'}`.text).toBe('javascript:\u202E');
  });
});
