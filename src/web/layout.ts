import { html, type Fragment, type SafeHtml } from './html.js';

export interface LayoutOptions {
  lang: string;
  title: string;
  stylesheet: string;
  /** Loaded deferred; pages work without it (the state shown is the server's). */
  script?: string;
  body: Fragment;
}

export function layout(options: LayoutOptions): SafeHtml {
  return html`<!doctype html>
<html lang="${options.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title}</title>
<link rel="stylesheet" href="${options.stylesheet}">
${options.script ? html`<script defer src="${options.script}"></script>` : null}
</head>
<body>
${options.body}
</body>
</html>`;
}
