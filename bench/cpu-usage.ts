import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

// USER_HZ, the unit of /proc CPU times: 100 on every mainstream Linux build (Node exposes no sysconf).
const TICKS_PER_SECOND = 100;

/** CPU used during a measurement, in cores (2.0 = both cores of a 2-core machine busy throughout). */
export interface CpuCores {
  /** The server child under test (or the children, summed, when given several). */
  server: number;
  /** Every `postgres` process on the machine: the backends serving the service, plus anyone else's. */
  postgres: number;
  /** This process: autocannon. */
  loadGenerator: number;
  /** The whole machine, from /proc/stat. */
  machine: number;
  /** Whatever else ran meanwhile (the machine is shared): machine minus the three above. */
  other: number;
}

interface Snapshot {
  at: bigint;
  server: number;
  postgres: number;
  loadGenerator: NodeJS.CpuUsage;
  machine: number;
}

/** Starts measuring; call the returned function when the measurement ends. */
export function startCpuMeter(serverPid: number | readonly number[]): () => CpuCores {
  const pids = typeof serverPid === 'number' ? [serverPid] : serverPid;
  const before = snapshot(pids);
  return () => {
    const after = snapshot(pids);
    const seconds = Number(after.at - before.at) / 1e9;
    const cores = (ticks: number) => round(ticks / TICKS_PER_SECOND / seconds);
    const own = process.cpuUsage(before.loadGenerator);
    const server = cores(after.server - before.server);
    const postgres = cores(after.postgres - before.postgres);
    const loadGenerator = round((own.user + own.system) / 1e6 / seconds);
    const machine = cores(after.machine - before.machine);
    return { server, postgres, loadGenerator, machine, other: round(Math.max(0, machine - server - postgres - loadGenerator)) };
  };
}

/**
 * Waits, at most `maxSeconds`, for a one-second span in which the machine runs under `thresholdCores` of
 * work (nothing of the bench runs between scenarios, so that is other people's).
 */
export async function waitForQuietMachine(
  maxSeconds: number,
  thresholdCores = 0.25,
): Promise<{ seconds: number; quiet: boolean }> {
  const started = Date.now();
  let quiet = false;
  while (!quiet && Date.now() - started < maxSeconds * 1000) {
    const before = machineBusyTicks();
    await sleep(1000);
    quiet = (machineBusyTicks() - before) / TICKS_PER_SECOND < thresholdCores;
  }
  return { seconds: Math.round((Date.now() - started) / 1000), quiet };
}

function snapshot(serverPids: readonly number[]): Snapshot {
  return {
    at: process.hrtime.bigint(),
    server: serverPids.reduce((sum, pid) => sum + (processTicks(String(pid)) ?? 0), 0),
    postgres: postgresTicks(),
    loadGenerator: process.cpuUsage(),
    machine: machineBusyTicks(),
  };
}

/** The fields of /proc/<pid>/stat after the command name, or null once the process has gone. */
function statFields(pid: string): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields from the ')' that closes it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

// Indexes into statFields (proc(5) fields 4, 14, 15, 16 and 17).
const PPID = 1;
const UTIME = 11;
const STIME = 12;
const CHILDREN_UTIME = 13;
const CHILDREN_STIME = 14;

/** utime + stime of one process, or null once it has gone. */
function processTicks(pid: string): number | null {
  const fields = statFields(pid);
  return fields && Number(fields[UTIME]) + Number(fields[STIME]);
}

/**
 * Every PostgreSQL process's CPU so far, those that have exited included: a backend or autovacuum worker that ends
 * during a measurement takes its own ticks with it, but its postmaster, which reaps it, adds them to its children's
 * times. Summing live processes alone made the figure fall (even below zero) whenever one exited.
 */
function postgresTicks(): number {
  const processes = new Map<string, string[]>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue; // exited while we listed
    }
    const fields = statFields(pid);
    if (fields) processes.set(pid, fields);
  }
  let total = 0;
  for (const fields of processes.values()) {
    total += Number(fields[UTIME]) + Number(fields[STIME]);
    const postmaster = !processes.has(fields[PPID]!);
    if (postmaster) total += Number(fields[CHILDREN_UTIME]) + Number(fields[CHILDREN_STIME]);
  }
  return total;
}

/** Ticks all CPUs spent running something (not idle, I/O wait, or stolen by the hypervisor). */
function machineBusyTicks(): number {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = cpu;
  return user + nice + system + irq + softirq;
}

const round = (value: number) => Math.round(value * 100) / 100;
