import { readFile } from 'node:fs/promises';

/** The fields of a V8 .cpuprofile the summary needs. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface Share {
  name: string;
  /** Percent of the sampled time the main thread was not idle. */
  percent: number;
}

export interface ProfileSummary {
  file: string;
  /** Percent of the window the main thread sat idle, waiting for I/O (the database, the network). */
  idlePercent: number;
  /** Inclusive time by what the request is doing: talking to the database, making ids, logging, the rest. */
  byArea: Share[];
  /** Self time by where the code comes from: a package, the service's src/, Node internals, GC. */
  byOrigin: Share[];
  /** The functions with the most self time; native ones name the package that called them. */
  topFunctions: Share[];
}

/** Self time per origin and per function, the two views that say where the server's CPU goes. */
export async function summariseProfile(file: string, top = 15): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

  const areas = new Map<string, number>();
  const origins = new Map<string, number>();
  const functions = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    const micros = profile.timeDeltas[index] ?? 0;
    if (!frame || frame.functionName === '(idle)') {
      idle += micros;
      return;
    }
    busy += micros;
    add(areas, area(id, frames, parents), micros);
    add(origins, origin(frame), micros);
    add(functions, describe(id, frames, parents), micros);
  });
  const shares = (totals: Map<string, number>, count: number) =>
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, micros]) => ({ name, percent: Math.round((micros / busy) * 1000) / 10 }));
  return {
    file,
    idlePercent: Math.round((idle / (idle + busy)) * 1000) / 10,
    byArea: shares(areas, AREAS.length + 3),
    byOrigin: shares(origins, 12),
    topFunctions: shares(functions, top),
  };
}

/** A sample counts for the first area met walking up from the running function to the event loop. */
const AREAS: Array<[name: string, url: RegExp]> = [
  [
    'database and rate-limit clients (pg, rate-limiter-flexible, PGlite)',
    /\/node_modules\/(pg[\w-]*|postgres-[\w-]+|rate-limiter-flexible|@electric-sql\/pglite)\/|^wasm:/,
  ],
  ['request ids (ulid)', /\/node_modules\/ulid\//],
  ['logging (pino)', /\/node_modules\/(pino[\w-]*|sonic-boom)\//],
];

function area(id: number, frames: Map<number, CallFrame>, parents: Map<number, number>): string {
  for (let node: number | undefined = id; node !== undefined; node = parents.get(node)) {
    const url = frames.get(node)!.url;
    const match = AREAS.find(([, pattern]) => pattern.test(url));
    if (match) return match[0];
  }
  const leaf = frames.get(id)!.functionName;
  if (leaf === 'writev') return 'socket writes of HTTP responses';
  if (leaf === '(garbage collector)') return 'garbage collector';
  return 'HTTP, Fastify, hooks, service code, V8';
}

function add(totals: Map<string, number>, key: string, micros: number): void {
  totals.set(key, (totals.get(key) ?? 0) + micros);
}

function origin({ url, functionName }: CallFrame): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(V8 builtins and native)';
  if (url.startsWith('node:')) return 'node: internals';
  const nodeModules = url.lastIndexOf('/node_modules/');
  if (nodeModules >= 0) {
    const parts = url.slice(nodeModules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.includes('/src/')) return 'service src/';
  return url;
}

/**
 * `name (file:line)`. A native function (a syscall such as writev) says nothing on its own, so it is
 * labelled with the nearest caller from a package or from src/: "writev [via pg]" versus "[via fastify]".
 */
function describe(id: number, frames: Map<number, CallFrame>, parents: Map<number, number>): string {
  const frame = frames.get(id)!;
  const name = frame.functionName || '(anonymous)';
  if (frame.url !== '') {
    const file = frame.url.replace(/^file:\/\/.*?\/(node_modules|src|bench)\//, '$1/');
    return `${name} (${file}:${frame.lineNumber + 1})`;
  }
  if (name.startsWith('(')) return name;
  for (let parent = parents.get(id); parent !== undefined; parent = parents.get(parent)) {
    const from = origin(frames.get(parent)!);
    if (!from.startsWith('(') && from !== 'node: internals') return `${name} [via ${from}]`;
  }
  return name;
}
