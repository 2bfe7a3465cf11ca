import type { Command } from 'commander';
import { stopSignal } from './stop-signal.js';
import type { Output } from './operator-api.js';

/**
 * `connect-payments signer`: the process that holds the deposit seed, on its own host; it needs neither the database
 * nor the service's settings, only its own (docs/treasury.md, "The signer").
 */
export function signerCommands(program: Command, stdout: Output, env: NodeJS.ProcessEnv): void {
  const signer = program.command('signer').description('The signer process that holds the deposit seed and signs only sweeps and top-ups its policy allows (docs/treasury.md)');
  signer
    .command('run', { isDefault: true })
    .description('Serve signing requests on CONNECT_SIGNER_ADDRESS until SIGTERM or SIGINT')
    .action(async () => {
      const [{ loadSignerSettings }, { buildSigner }, { pino }, { LOG_REDACTIONS, terminalLogging }] = await Promise.all([
        import('../signer/settings.js'),
        import('../signer/server.js'),
        import('pino'),
        import('../logging.js'),
      ]);
      const settings = loadSignerSettings(env);
      const logger = pino({ level: settings.logLevel, redact: LOG_REDACTIONS, ...terminalLogging() });
      const app = await buildSigner({ ...settings.setup, logger });
      await app.listen({ host: settings.host, port: settings.port });
      logger.info({ networks: [...settings.setup.rules.keys()], gas_account: settings.setup.gas.address }, 'signer listening');
      logger.info({ signal: await stopSignal() }, 'signer stopping');
      await app.close();
    });
  signer
    .command('secret')
    .description('Print a new secret for the channel between the service and the signer: give it to both, each in a file only it can read')
    .action(async () => {
      const { generateWebhookSecret } = await import('../domain/webhooks.js');
      stdout.write(`${generateWebhookSecret()}\n`);
    });
}
