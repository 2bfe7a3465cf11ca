import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="230" height="36" viewBox="0 0 230 36">
<rect x="0" y="4" width="28" height="28" rx="7" fill="#1f6feb"/>
<path d="M19 12a7 7 0 1 0 0 12" stroke="#fff" stroke-width="3.2" fill="none" stroke-linecap="round"/>
<text x="38" y="25" font-family="system-ui,-apple-system,Segoe UI,sans-serif" font-size="18" font-weight="600" fill="#fff">Connect Payments</text>
</svg>`;

/**
 * The browsable reference at /connect/v1/docs: Swagger UI served from the package (its files ship in
 * node_modules; nothing is fetched from a CDN), titled and branded for the product.
 */
export function docsPage(routePrefix: string): FastifySwaggerUiOptions {
  return {
    routePrefix,
    theme: { title: 'Connect Payments API reference' },
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: routePrefix, target: '_self' },
    uiConfig: { deepLinking: true, displayRequestDuration: true, docExpansion: 'list', tryItOutEnabled: false },
    // Nothing to validate against outside: the default would send the document to swagger.io.
    validatorUrl: false,
  };
}
