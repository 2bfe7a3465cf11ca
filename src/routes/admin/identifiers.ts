import { Type, type Static } from 'typebox';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { errorResponses } from '../../http/schemas.js';
import { checkStoredIdentifiers, MAX_LISTED } from '../../use-cases/identifier-check.js';

/** What `connect-payments identifiers check` prints; the CLI exits 1 when `ok` is false. */
export const IdentifierCheck = Type.Object(
  {
    object: Type.Literal('identifier_check'),
    profiles_checked: Type.Integer(),
    problems: Type.Array(
      Type.Object({
        organization_id: Type.String(),
        mode: Type.String(),
        profile_id: Type.String(),
        external_ref: Type.String({ description: 'As stored.' }),
        escaped: Type.String({ description: 'The ref in printable ASCII, every other character as \\u{…}: as the dashboard shows it; its search box takes it.' }),
        problem: Type.String({ description: 'Not NFC (and what the API now reads it as), or the refused character and where it is.' }),
        looks_like_profile_id: Type.Union([Type.String(), Type.Null()], {
          description: 'Another profile of the organization and mode whose ref this one shows as: two balances a reader cannot tell apart.',
        }),
      }),
      { description: `Profiles whose external_ref the identifier rule would refuse or normalize, at most ${MAX_LISTED}.` },
    ),
    problems_left_out: Type.Integer({ description: 'Problems beyond those listed.' }),
    ok: Type.Boolean({ description: 'True when no stored external_ref breaks the rule.' }),
  },
  { title: 'IdentifierCheck' },
);
export type IdentifierCheckAnswer = Static<typeof IdentifierCheck>;

export function adminIdentifierRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/identifiers/check',
    {
      schema: {
        summary: 'List stored external_refs that break the identifier rule',
        description:
          'Every profile whose external_ref is not NFC or holds a character the rule refuses (docs/conventions.md#identifiers): rows ' +
          'written before the rule. Nothing is changed (rewriting a ref could merge two balances); the operator settles each with ' +
          'its partner. Answers 200 whatever it finds; `ok` says whether every ref passes.',
        tags: ['operator'],
        response: { 200: IdentifierCheck, ...errorResponses(401) },
      },
    },
    async () => ({ object: 'identifier_check' as const, ...(await checkStoredIdentifiers(db)) }),
  );
}
