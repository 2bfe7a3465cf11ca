import { Type } from 'typebox';
import { ORGANIZATION_STATUSES } from '../domain/organizations.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { errorResponses, isoOrNull, NullableTimestamp, PARTNER_ERRORS, Timestamp, Uuid } from '../http/schemas.js';

const Health = Type.Object({
  object: Type.Literal('health'),
  status: Type.Literal('ok'),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
  livemode: Type.Boolean(),
  key_expires_at: NullableTimestamp,
  organization: Type.Object({
    id: Uuid,
    status: Type.Enum(ORGANIZATION_STATUSES),
  }),
  api_version: Type.Literal('v1'),
  server_time: Timestamp,
});

export function healthRoutes(app: App, { clock }: AppContext): void {
  app.get(
    '/health',
    {
      config: { anyOrganizationStatus: true },
      schema: {
        summary: 'Check a key and connectivity',
        description: 'Works for organizations not yet approved. Needs no scope.',
        tags: ['health'],
        response: { 200: Health, ...errorResponses(...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const caller = request.caller!;
      return {
        object: 'health' as const,
        status: 'ok' as const,
        mode: caller.mode === 'live' ? ('live' as const) : ('sandbox' as const),
        livemode: caller.mode === 'live',
        key_expires_at: isoOrNull(caller.expiresAt),
        organization: { id: caller.organizationId, status: caller.organizationStatus },
        api_version: 'v1' as const,
        server_time: clock.now().toISOString(),
      };
    },
  );
}
