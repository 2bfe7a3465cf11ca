import type { Command } from 'commander';
import type { IdentifierCheckAnswer } from '../routes/admin/identifiers.js';
import type { RunVerb } from './verbs.js';

/**
 * One line a stored ref that breaks the rule, with whose it is; the ref escaped, never raw (a raw U+202E would
 * reorder the terminal's line, a zero-width space would not show).
 */
export function identifierCheckText(answer: IdentifierCheckAnswer): string {
  if (answer.ok) return `Checked ${answer.profiles_checked} external_refs: every one is NFC and passes the identifier rule.\n`;
  const lines = answer.problems.map(
    (p) =>
      `${p.organization_id} ${p.mode} profile ${p.profile_id} "${p.escaped}": ${p.problem}` +
      (p.looks_like_profile_id ? ` (shows as the ref of profile ${p.looks_like_profile_id})` : ''),
  );
  if (answer.problems_left_out > 0) lines.push(`… and ${answer.problems_left_out} more (GET /admin/v1/identifiers/check)`);
  return `${lines.join('\n')}\n`;
}

export function identifierCommands(program: Command, run: RunVerb): void {
  const identifiers = program.command('identifiers').description('Check identifiers stored before the identifier rule (docs/conventions.md#identifiers)');
  identifiers
    .command('check')
    .description('List every stored external_ref that is not NFC or holds a control, format, bidi or other refused character, with its organization, mode and profile; changes nothing; exits 1 when any is found')
    .option('--json', 'print the operator API answer as JSON')
    .action((options: { json?: boolean }) =>
      run({ method: 'GET', path: '/identifiers/check' }, undefined, {
        text: options.json ? undefined : (answer) => identifierCheckText(answer as IdentifierCheckAnswer),
        failure: (answer) => {
          const { ok, problems, problems_left_out: leftOut } = answer as IdentifierCheckAnswer;
          return ok ? null : `Identifier check: ${problems.length + leftOut} stored external_ref(s) break the identifier rule; see docs/conventions.md#identifiers.`;
        },
      }),
    );
}
