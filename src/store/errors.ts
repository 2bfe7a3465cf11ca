/** True when `error` is PostgreSQL's refusal of a row by the named constraint (either engine). */
export function violates(error: unknown, constraint: string): boolean {
  return error instanceof Error && 'constraint' in error && error.constraint === constraint;
}
