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

/** utime + stime of one process, or null once it has gone. */
function processTicks(pid: string): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields from the ')' that closes it. utime and stime
    // are fields 14 and 15, so 11 and 12 after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

function postgresTicks(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue; // exited while we listed
    }
    total += processTicks(pid) ?? 0;
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
