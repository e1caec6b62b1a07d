/**
 * `node:timers/promises` on the kit's clock for an in-process controller (virtual-time.ts patches
 * the module while a run lasts): `setTimeout(ms, value, { signal })`, `setImmediate(value)`,
 * `setInterval(ms, value)` (an async iterator whose ticks queue up while nobody awaits them, as
 * Node's do), `scheduler.wait(ms)` and `scheduler.yield()`. Each call outside the run's context
 * goes to the real function. Guide: docs/testing.md, "Time the kit controls".
 */
import type * as realTimerPromises from 'node:timers/promises';

/** A cancellable timer on the run's clock, or undefined when the caller is outside the run (use the real one). */
export type TimerFactory = (callback: () => void, delayMs: number, repeat: boolean) => { clear(): void } | undefined;

/** The signal in a timers/promises options argument, read defensively (it is the caller's object). */
const signalOf = (options: unknown): AbortSignal | undefined => {
  const signal: unknown = typeof options === 'object' && options !== null ? Reflect.get(options, 'signal') : undefined;
  return signal instanceof AbortSignal ? signal : undefined;
};

/** The error Node's timers/promises rejects with when the signal aborts. */
const abortError = (signal: AbortSignal): Error =>
  Object.assign(new Error('The operation was aborted', { cause: signal.reason }), {
    name: 'AbortError',
    code: 'ABORT_ERR',
  });

/** A promise for `value` once a virtual timer of `delayMs` fires, rejected if `options.signal` aborts first. */
const virtualSleep = <T>(
  timer: TimerFactory,
  delayMs: number,
  value: T,
  options: unknown,
  real: () => Promise<T>,
): Promise<T> => {
  const signal = signalOf(options);
  if (signal?.aborted === true) return Promise.reject(abortError(signal));
  let onAbort: () => void = () => undefined;
  const settled = new Promise<T>((resolve, reject) => {
    const armed = timer(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      },
      delayMs,
      false,
    );
    if (armed === undefined) return resolve(real());
    onAbort = () => {
      armed.clear();
      reject(abortError(signal ?? new AbortController().signal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  return settled;
};

/** The iterator `setInterval` of timers/promises returns, its ticks from a repeating virtual timer. */
const virtualInterval = <T>(
  timer: TimerFactory,
  delayMs: number,
  value: T,
  options: unknown,
): AsyncGenerator<T> | undefined => {
  const signal = signalOf(options);
  const state: { ticks: number; done: boolean; waiter?: (result: IteratorResult<T>) => void; fail?: () => void } = {
    ticks: 0,
    done: false,
  };
  const armed = timer(
    () => {
      const waiter = state.waiter;
      [state.waiter, state.fail] = [undefined, undefined];
      if (waiter === undefined) state.ticks++;
      else waiter({ value, done: false });
    },
    delayMs,
    true,
  );
  if (armed === undefined) return undefined;
  const finish = (): IteratorResult<T> => {
    state.done = true;
    armed.clear();
    return { value: undefined, done: true };
  };
  signal?.addEventListener('abort', () => state.fail?.(), { once: true });
  const next = (): Promise<IteratorResult<T>> => {
    if (signal?.aborted === true) return (finish(), Promise.reject(abortError(signal)));
    if (state.done) return Promise.resolve({ value: undefined, done: true });
    if (state.ticks > 0) return (state.ticks--, Promise.resolve({ value, done: false }));
    return new Promise((resolve, reject) => {
      state.waiter = resolve;
      state.fail = () => (finish(), reject(abortError(signal ?? new AbortController().signal)));
    });
  };
  const iterator: AsyncGenerator<T> = {
    next,
    return: () => Promise.resolve(finish()),
    // the async-iterator protocol: throw(error) rejects with the caller's own error, whatever it is
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    throw: (error: unknown) => (finish(), Promise.reject(error)),
    [Symbol.asyncIterator]: () => iterator,
    [Symbol.asyncDispose]: () => {
      finish();
      return Promise.resolve();
    },
  };
  return iterator;
};

/** The real module's functions the virtual ones fall back to. */
export type RealTimerPromises = Pick<typeof realTimerPromises, 'setTimeout' | 'setImmediate' | 'setInterval'>;

/** Calls one of the real module's functions with the caller's arguments, as they are. */
const callReal = (real: (...args: never[]) => Promise<unknown>, args: ReadonlyArray<unknown>): Promise<unknown> => {
  const answer: unknown = Reflect.apply(real, undefined, args);
  return Promise.resolve(answer);
};

/** The virtual module functions: each falls back to `real`'s when its caller is outside the run. */
export const virtualTimerPromises = (timer: TimerFactory, real: RealTimerPromises) => {
  const delayOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 1);
  const setTimeout = (delay?: unknown, value?: unknown, options?: unknown): Promise<unknown> =>
    virtualSleep(timer, delayOf(delay), value, options, () => callReal(real.setTimeout, [delay, value, options]));
  const setImmediate = (value?: unknown, options?: unknown): Promise<unknown> =>
    virtualSleep(timer, 0, value, options, () => callReal(real.setImmediate, [value, options]));
  const setInterval = (delay?: unknown, value?: unknown, options?: unknown): unknown =>
    virtualInterval(timer, delayOf(delay), value, options) ??
    Reflect.apply(real.setInterval, undefined, [delay, value, options]);
  const scheduler = {
    wait: (delay: unknown, options?: unknown) => setTimeout(delay, undefined, options),
    yield: () => setImmediate(),
  };
  return { setTimeout, setImmediate, setInterval, scheduler };
};
