import type { ChildProcess } from 'node:child_process';
import type { ProbeCommand, ProbeReply } from './probe.js';
import { summariseProfile, type ProfileSummary, type Share } from './cpu-profile.js';
import { sampleActivity } from './pg-activity.js';

export interface ProfileReport {
  cpu: ProfileSummary;
  /** Statements the service sent through `pg` per completed request (PostgreSQL targets only). */
  statementsPerRequest: Record<string, number>;
  /** What the service's database sessions were doing (PostgreSQL targets only). */
  postgresSessions: Share[] | null;
}

export interface ProfileTarget {
  child: ChildProcess;
  profilePath: string;
  /** Set for PostgreSQL targets: where to watch the service's sessions. */
  postgres: { adminUrl: string; database: string } | null;
}

/** Starts the probe in the child (see probe.ts); the returned function ends it, given the requests served. */
export async function startProfiling(target: ProfileTarget): Promise<(requests: number) => Promise<ProfileReport>> {
  await ask(target.child, { probe: 'start' });
  const stopSampling = target.postgres ? await sampleActivity(target.postgres.adminUrl, target.postgres.database) : null;
  return async (requests) => {
    const [reply, postgresSessions] = await Promise.all([
      ask(target.child, { probe: 'stop', profilePath: target.profilePath }),
      stopSampling ? stopSampling() : null,
    ]);
    const statements = reply.probe === 'stopped' ? reply.statements : {};
    return {
      cpu: await summariseProfile(target.profilePath),
      statementsPerRequest: Object.fromEntries(
        Object.entries(statements).map(([text, count]) => [
          text.replace(/\s+/g, ' ').trim().slice(0, 100),
          Math.round((count / requests) * 1000) / 1000,
        ]),
      ),
      postgresSessions,
    };
  };
}

function ask(child: ChildProcess, command: ProbeCommand): Promise<ProbeReply> {
  const expected = command.probe === 'start' ? 'started' : 'stopped';
  return new Promise((resolve, reject) => {
    const onMessage = (reply: ProbeReply) => {
      if (reply.probe !== expected) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(reply);
    };
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`the profiling probe did not answer "${command.probe}"`));
    }, 30_000);
    child.on('message', onMessage);
    child.send(command);
  });
}
