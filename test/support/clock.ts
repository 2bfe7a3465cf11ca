import type { Clock } from '../../src/domain/clock.js';

/** A business clock that moves only when a test moves it: expiry and ordering without sleeping. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
