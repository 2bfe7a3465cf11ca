import type { LiveSummary } from './use-cases/live-summary.js';
import type { OperatorService } from './use-cases/operator.js';
import type { OperatorToken } from './operator-files.js';
import { adminTokenFile } from './operator-files.js';
import { ADMIN_PREFIX, PARTNER_PREFIX } from './http/app.js';

export interface BannerFacts {
  /** Where the server answers: scheme, host and port. */
  base: string;
  database: { kind: 'pglite' | 'postgres'; dataDir: string };
  demo: Awaited<ReturnType<OperatorService['bootstrapDemo']>>;
  token: OperatorToken;
  metricsUrl: string | null;
  live: LiveSummary;
}

/** What `npm start` prints once the server listens: where it is, how to call it, and (first start only) the secrets. */
export function banner({ base, database, demo, token, metricsUrl, live }: BannerFacts): string {
  const lines = [
    '',
    `Connect Payments is running on ${database.kind === 'pglite' ? `the embedded database (${database.dataDir})` : 'PostgreSQL'}.`,
    `  API base URL:    ${base}${PARTNER_PREFIX}`,
    `  API reference:   ${base}${PARTNER_PREFIX}/docs`,
    `  Probes:          ${base}/livez, ${base}/readyz`,
  ];
  if (demo) {
    lines.push(
      `  Demo organization ${demo.organization.id} (active) with a sandbox key, shown only this once:`,
      `    ${demo.apiKey.key}`,
      '  Try it:',
      `    curl -H "Authorization: Bearer ${demo.apiKey.key}" ${base}${PARTNER_PREFIX}/health`,
    );
  } else {
    lines.push('  Create keys with the operator API or CLI (npx connect-payments key create --help).');
  }
  lines.push(...liveLines(live));
  if (metricsUrl) lines.push(`  Metrics, without a token: ${metricsUrl}`);
  if (token.origin === 'generated') {
    lines.push(
      `  Operator token for ${base}${ADMIN_PREFIX} (generated, kept in ${adminTokenFile(database.dataDir)}; ` +
        '`npx connect-payments admin-token` prints it again):',
      `    ${token.token}`,
    );
  } else if (token.origin === 'stored') {
    lines.push(`  Operator token for ${base}${ADMIN_PREFIX}: \`npx connect-payments admin-token\` prints it.`);
  }
  return `${lines.join('\n')}\n\n`;
}

/** Where each live chain family (EVM, Tron, Solana) is set up: named when no live network is configured. */
export const LIVE_SETUP_DOCS = ['docs/live-evm.md', 'docs/live-tron.md', 'docs/live-solana.md'];

/** The live path in a few lines: an operator sees at once whether the settings meant for it were read. */
function liveLines({ networks, watchers, payout_signer: signer, tron_payout_signer: tronSigner, solana_owner_pools: pools, solana_payout_signer: solanaSigner }: LiveSummary): string[] {
  const served = Object.entries(networks);
  if (served.length === 0) return [`  Live networks:   none (live keys get no addresses; ${LIVE_SETUP_DOCS.join(', ')} set them up)`];
  const watched = watchers.length ? `watched here: ${watchers.join(', ')}` : 'watched by worker processes';
  return [
    `  Live networks:   ${served.map(([network, rpc]) => `${network} (${rpc})`).join(', ')}; ${watched}`,
    signer
      ? `  Payout signer:   ${signer.address} (${signer.kind === 'remote' ? `remote, ${signer.url}` : signer.kind.replace('_', ' ')})`
      : '  Payout signer:   none, live payouts are refused (set CONNECT_EVM_SIGNER_KEY, _KEY_FILE or _URL)',
    ...(tronSigner === undefined
      ? []
      : [
          tronSigner
            ? `  Tron signer:     ${tronSigner.address} (${tronSigner.kind.replace('_', ' ')})`
            : '  Tron signer:     none, live Tron payouts are refused (set CONNECT_TRON_SIGNER_KEY or _KEY_FILE)',
        ]),
    ...(pools
      ? [`  Solana owners:   ${Object.entries(pools).map(([network, pool]) => `${network} ${pool.free} free${pool.low ? ' (low: import more, docs/live-solana.md)' : ''}`).join(', ')}`]
      : []),
    ...(solanaSigner !== undefined
      ? [
          solanaSigner
            ? `  Solana signer:   ${solanaSigner.address} (${solanaSigner.kind.replace('_', ' ')})`
            : '  Solana signer:   none, live Solana payouts are refused (set CONNECT_SOLANA_SIGNER_KEY_FILE or _KEY)',
        ]
      : []),
  ];
}
