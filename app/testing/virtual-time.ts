/**
 * The controller's own time on the kit's manual clock, for a controller run in process: while a
 * run lasts, `setTimeout`, `setInterval`, `clearTimeout`, `clearInterval`, `Date` and
 * `performance.now` (the globals and `node:timers`' exports), and `node:timers/promises`
 * (virtual-timer-promises.ts) answer from the run's ManualClock for code running in the run's
 * async context (the module the kit imported, everything it awaits and schedules), and from the
 * real ones for everything else (the test runner, the kit, the served endpoint). A module's
 * `import { setTimeout } from 'node:timers/promises'` is a live binding: the patched module
 * exports reach it through `syncBuiltinESMExports`. Everything is restored when the run ends, on
 * every exit path. Guide: docs/testing.md, "Time the kit controls".
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { syncBuiltinESMExports } from 'node:module';
import timersModule from 'node:timers';
import timerPromisesModule from 'node:timers/promises';
import { promisify } from 'node:util';
import type { ManualClock } from '../../adapters/memory/clock/manual-clock.js';
import { virtualTimerPromises, type RealTimerPromises } from './virtual-timer-promises.js';

/** What the patched globals need of the run whose context a call comes from. */
type RunTime = {
  readonly clock: ManualClock;
  /** The run is over: its pending timers never fire, new ones are never due. */
  ended: boolean;
  /** A callback of the controller's timer threw (as an uncaught exception would crash its process). */
  readonly thrown: (error: unknown) => void;
};

/** The real globals, taken when the run starts. */
type RealTime = {
  readonly setTimeout: typeof globalThis.setTimeout;
  readonly setInterval: typeof globalThis.setInterval;
  readonly clearTimeout: typeof globalThis.clearTimeout;
  readonly clearInterval: typeof globalThis.clearInterval;
  readonly Date: DateConstructor;
  readonly performanceNow: PerformanceNow;
  readonly ownPerformanceNow: boolean;
  /** `node:timers`' exports and `node:timers/promises`' as they were (own properties, put back as they were). */
  readonly timersModule: ReadonlyArray<[string, PropertyDescriptor | undefined]>;
  readonly timerPromisesModule: ReadonlyArray<[string, PropertyDescriptor | undefined]>;
  readonly promises: RealTimerPromises;
};

const TIMER_EXPORTS = ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] as const;
const PROMISE_EXPORTS = ['setTimeout', 'setImmediate', 'setInterval', 'scheduler'] as const;

const descriptors = (
  target: object,
  keys: ReadonlyArray<string>,
): ReadonlyArray<[string, PropertyDescriptor | undefined]> =>
  keys.map((key) => [key, Object.getOwnPropertyDescriptor(target, key)]);

const putBack = (target: object, saved: ReadonlyArray<[string, PropertyDescriptor | undefined]>): void =>
  saved.forEach(([key, descriptor]) =>
    descriptor === undefined ? Reflect.deleteProperty(target, key) : Object.defineProperty(target, key, descriptor),
  );

type PerformanceNow = () => number;

/** A timer on the manual clock, shaped as Node's Timeout (ref, unref, refresh, a numeric id). */
class VirtualTimer {
  private cancel: () => void = () => undefined;
  constructor(
    private readonly run: RunTime,
    private readonly callback: () => void,
    private readonly delayMs: number,
    private readonly repeat: boolean,
    readonly id: number,
  ) {
    this.arm();
  }
  private arm(): void {
    if (this.run.ended) return;
    this.cancel = this.run.clock.setTimer(this.delayMs, () => {
      if (this.run.ended) return;
      if (this.repeat) this.arm();
      try {
        this.callback();
      } catch (error) {
        this.run.thrown(error);
      }
    });
  }
  clear(): void {
    this.cancel();
  }
  refresh(): this {
    this.cancel();
    this.arm();
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return false;
  }
  close(): this {
    this.cancel();
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

/**
 * Whether this timer belongs to a module shared by the whole process rather than to the
 * controller: undici's 500 ms tick (the HTTP client's own timeout wheel, created lazily by
 * whichever caller first needs it and refreshed for ever after) must stay on real time, or every
 * later user of undici in the process would inherit a clock that stopped with this run.
 */
const sharedTimer = (): boolean => new Error().stack?.includes('undici/lib/util/timers.js') === true;

const delayOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** `Date` whose `now()` and argument-less construction read the run's clock inside a run's context. */
const virtualDate = (real: DateConstructor, current: () => RunTime | undefined) => {
  const now = (): number => {
    const run = current();
    return run === undefined ? real.now() : run.clock.now();
  };
  const VirtualDate = function (...args: unknown[]): unknown {
    if (!new.target) return new real(now()).toString();
    return args.length === 0 ? Reflect.construct(real, [now()], new.target) : Reflect.construct(real, args, new.target);
  };
  Object.setPrototypeOf(VirtualDate, real);
  VirtualDate.prototype = real.prototype;
  return Object.assign(VirtualDate, { now });
};

export type VirtualTime = {
  /** Runs `task` in the run's context: the timers and dates it (and what it schedules) uses are virtual. */
  enter<T>(task: () => T): T;
  /** Whether the caller runs in the run's context (the controller's code, any instance of it, not the kit's). */
  inRun(): boolean;
  /** The controller crashed: its timers never fire again (the globals stay patched until `restore`). */
  halt(): void;
  /**
   * A fresh context for the controller's next instance (after a crash, the kit starts it again):
   * the halted instance's timers stay dead, `enter` runs in the new context from now on.
   */
  renew(): void;
  /** Ends the run: its timers never fire again; the real globals are back. Idempotent. */
  restore(): void;
};

/** The virtual timer functions: each answers from the run's clock inside its context, from `real` outside it. */
const virtualTimers = (real: RealTime, current: () => RunTime | undefined) => {
  let ids = 1_000_000;
  const timer = (callback: () => void, delay: number, repeat: boolean): VirtualTimer | undefined => {
    const run = current();
    // bound to the caller's context: the callback (and the timers it sets) stays in the run, as a real timer's does
    return run === undefined || sharedTimer()
      ? undefined
      : new VirtualTimer(run, AsyncResource.bind(callback), delay, repeat, ids++);
  };
  const virtual = (callback: unknown, delay: unknown, repeat: boolean, args: unknown[]): VirtualTimer | undefined =>
    typeof callback === 'function'
      ? timer(
          () => {
            Reflect.apply(callback, undefined, args);
          },
          delayOf(delay),
          repeat,
        )
      : undefined;
  const clear = (handle: unknown, realClear: (handle: never) => void): void => {
    if (handle instanceof VirtualTimer) handle.clear();
    else Reflect.apply(realClear, globalThis, [handle]);
  };
  const promises = virtualTimerPromises(timer, real.promises);
  const setTimeout = Object.assign(
    (callback: unknown, delay?: unknown, ...args: unknown[]): unknown =>
      virtual(callback, delay, false, args) ?? Reflect.apply(real.setTimeout, globalThis, [callback, delay, ...args]),
    // util.promisify(setTimeout) is timers/promises' setTimeout, as on the real global
    { [promisify.custom]: promises.setTimeout },
  );
  const timers = {
    setTimeout,
    setInterval: (callback: unknown, delay?: unknown, ...args: unknown[]): unknown =>
      virtual(callback, delay, true, args) ?? Reflect.apply(real.setInterval, globalThis, [callback, delay, ...args]),
    clearTimeout: (handle: unknown) => clear(handle, real.clearTimeout),
    clearInterval: (handle: unknown) => clear(handle, real.clearInterval),
  };
  return { timers, promises };
};

const install = (real: RealTime, context: AsyncLocalStorage<RunTime>): void => {
  const current = (): RunTime | undefined => context.getStore();
  const { timers, promises } = virtualTimers(real, current);
  Object.assign(globalThis, { ...timers, Date: virtualDate(real.Date, current) });
  Object.assign(timersModule, timers);
  Object.assign(timerPromisesModule, promises);
  syncBuiltinESMExports();
  const origin = real.performanceNow() - real.Date.now();
  performance.now = () => {
    const run = current();
    return run === undefined ? real.performanceNow() : run.clock.now() + origin;
  };
};

/** The real globals and module exports, as they are before a run patches them. */
const realTime = (): RealTime => ({
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
  clearTimeout: globalThis.clearTimeout,
  clearInterval: globalThis.clearInterval,
  Date: globalThis.Date,
  performanceNow: performance.now.bind(performance),
  ownPerformanceNow: Object.hasOwn(performance, 'now'),
  timersModule: descriptors(timersModule, TIMER_EXPORTS),
  timerPromisesModule: descriptors(timerPromisesModule, PROMISE_EXPORTS),
  promises: {
    setTimeout: timerPromisesModule.setTimeout,
    setImmediate: timerPromisesModule.setImmediate,
    setInterval: timerPromisesModule.setInterval,
  },
});

/**
 * Patches the time globals for one run on `clock` until `restore()`. `thrown` gets what a
 * virtual timer's callback throws. Only one run at a time: a second one while the globals are
 * patched is refused (the first must restore them first).
 */
export const virtualTime = (clock: ManualClock, thrown: (error: unknown) => void): VirtualTime => {
  if (Reflect.get(globalThis, patchedMark) === true)
    throw new Error('virtual time: another in-process controller run is under way (runs must not overlap)');
  const real = realTime();
  const context = new AsyncLocalStorage<RunTime>();
  let run: RunTime = { clock, ended: false, thrown };
  install(real, context);
  Reflect.set(globalThis, patchedMark, true);
  let restored = false;
  return {
    enter: (task) => context.run(run, task),
    // any instance's: a crashed instance's last output still belongs to the controller (its previous log)
    inRun: () => context.getStore() !== undefined,
    halt: () => {
      run.ended = true;
    },
    renew: () => {
      run.ended = true;
      if (!restored) run = { clock, ended: false, thrown };
    },
    restore: () => {
      if (restored) return;
      restored = true;
      run.ended = true;
      const { setTimeout, setInterval, clearTimeout, clearInterval, Date: realDate } = real;
      Object.assign(globalThis, { setTimeout, setInterval, clearTimeout, clearInterval, Date: realDate });
      putBack(timersModule, real.timersModule);
      putBack(timerPromisesModule, real.timerPromisesModule);
      syncBuiltinESMExports();
      const { performanceNow, ownPerformanceNow } = real;
      if (ownPerformanceNow) performance.now = performanceNow;
      else Reflect.deleteProperty(performance, 'now');
      Reflect.deleteProperty(globalThis, patchedMark);
      context.disable();
    },
  };
};

/** Marks the globals as patched by a run (a property on globalThis, removed on restore). */
const patchedMark = Symbol.for('kreconcile.testing.virtualTime');
