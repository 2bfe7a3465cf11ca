import type { Resolve } from '../../../src/providers/webhooks/destination-policy.js';

/** A resolver that gives its answers in turn (the last one repeats) and records which hostnames it was asked. */
export function scriptedResolver(...answers: string[][]): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<string[]> => {
    asked.push(hostname);
    return answers[Math.min(asked.length, answers.length) - 1] ?? [];
  };
  return Object.assign(resolve, { asked });
}

/** A resolver that fails as the system one does for a name with no records. */
export function unresolvable(): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<string[]> => {
    asked.push(hostname);
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  return Object.assign(resolve, { asked });
}
