import escapeHtml from 'escape-html';

/** Markup that is already safe to send: built by `html`, or trusted output of a library (the QR code SVG). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Fragment = SafeHtml | string | number | null | undefined | false | Fragment[];

export const trusted = (markup: string) => new SafeHtml(markup);

function render(fragment: Fragment): string {
  if (fragment === null || fragment === undefined || fragment === false) return '';
  if (Array.isArray(fragment)) return fragment.map(render).join('');
  if (fragment instanceof SafeHtml) return fragment.value;
  return escapeHtml(String(fragment));
}

/** A template whose interpolated values are escaped unless they are SafeHtml: pages cannot be injected into. */
export function html(strings: TemplateStringsArray, ...values: Fragment[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** Data for a page's script, in a non-executable script element; `<` is escaped so no value can close it. */
export const jsonData = (id: string, data: unknown) =>
  trusted(`<script type="application/json" id="${escapeHtml(id)}">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`);
