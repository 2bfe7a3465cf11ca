/** One sample of the Prometheus text format: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of an exposition; comments (HELP, TYPE) and blank lines are skipped, a malformed line throws. */
export function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = SAMPLE_LINE.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name!, JSON.parse(`"${value}"`) as string]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/**
 * The sum of the samples named `name` whose labels include `labels`, as PromQL's sum() would give it;
 * undefined when no sample matches (a series that does not exist is not a zero).
 */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  return matching.length === 0 ? undefined : matching.reduce((sum, s) => sum + s.value, 0);
}
