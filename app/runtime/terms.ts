/**
 * The operator's leadership terms. A term is a value — its number, its Controller, its state — and
 * this part, their one owner (with the leader elector it campaigns with), moves them through
 * explicit transitions: a term comes into force when leadership is gained (a fresh Controller when
 * the last one already ran), ends when it is lost (out of force at once: its writes are refused,
 * its Controller stopped), and no term begins once the process stops. Without leader election the
 * first term is in force from the start.
 */
import type { Cluster } from '../../core/internal.js';
import type { Controller } from './controller.js';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.js';
import type { Logger } from '../logging/logger.js';
import type { Metrics } from './metrics.js';
import { fenced } from './write-fence.js';

export type TermState =
  /** Built, not in force yet (a standby's first Controller). */
  | { readonly _tag: 'Waiting' }
  | { readonly _tag: 'InForce' }
  /** Leadership lost or the process stopping: `stopped` is its Controller's stop, begun once. */
  | { readonly _tag: 'Ended'; readonly stopped: Promise<boolean> };

export type Term = { readonly number: number; readonly controller: Controller; readonly state: TermState };

/** Fences a cluster's writes to one term: refused unless that term is in force and the lease provably held. */
export type TermFence = (target: Cluster) => Cluster;

export type LeadershipTermsOptions = {
  /** Builds a term's Controller; `fence` (with leader election) is the term's write fence. */
  readonly controllerFor: (fence: TermFence | undefined) => Controller;
  /** Leader election (the callbacks are this part's); without it there is one term, in force from the start. */
  readonly election?: Omit<LeaderElectionOptions, 'onStartedLeading' | 'onStoppedLeading'>;
  readonly metrics: Pick<Metrics, 'leader'>;
  readonly logger: Logger;
  /** How long in-flight reconciles may finish after leadership is lost (then abandoned). */
  readonly stopDeadlineMs: number;
  /** Leadership was lost (not released): the process exits, so no term begins after it. */
  readonly onLostLeadership?: () => void;
};

const NOT_LEADING = 'this process cannot prove it still holds the leader lease for this term';

export class LeadershipTerms {
  private readonly elector: LeaderElector | undefined;
  /** The current (or last) term. */
  private term: Term;
  /** The process around the terms: /readyz says yes only while `ready`; a stopping process begins no term. */
  private process: 'starting' | 'ready' | 'stopping' = 'starting';

  constructor(private readonly options: LeadershipTermsOptions) {
    this.elector =
      options.election === undefined
        ? undefined
        : new LeaderElector({
            ...options.election,
            onStartedLeading: () => this.gained(),
            onStoppedLeading: () => this.lost(),
          });
    this.term = this.newTerm(1);
  }

  /** The Controller of the current (or last) term. */
  get controller(): Controller {
    return this.term.controller;
  }

  get current(): Term {
    return this.term;
  }

  get isLeader(): boolean {
    return this.elector?.isLeader ?? true;
  }

  /** Started and not stopping (a standby waiting for leadership is ready). */
  get ready(): boolean {
    return this.process === 'ready';
  }

  /**
   * Without leader election, the first term comes into force and its Controller starts (rejects
   * when it cannot); with it, the process is ready and campaigns.
   */
  async start(): Promise<void> {
    if (this.elector === undefined) {
      this.term = { ...this.term, state: { _tag: 'InForce' } };
      await this.term.controller.start();
      this.process = 'ready';
      return;
    }
    this.process = 'ready';
    this.elector.start();
  }

  /**
   * Graceful stop: no term begins any more; the current one ends. Resolves true when its reconciles finished in time.
   */
  stop(deadlineMs: number): Promise<boolean> {
    this.process = 'stopping';
    return this.end(deadlineMs);
  }

  /** After `stop`: the lease is released, or (`release` false: writes may still be on their way) left to expire. */
  async resign(release: boolean): Promise<void> {
    await this.elector?.stop({ release });
  }

  private gained(): void {
    this.options.metrics.leader.set(1);
    // A stopping process (graceful stop, or exiting after a lost lease) starts no new term, even if the lease comes
    // back.
    if (this.process !== 'stopping') void this.begin();
  }

  private lost(): void {
    this.options.metrics.leader.set(0);
    void this.end(this.options.stopDeadlineMs);
    if (this.process === 'stopping' || this.options.onLostLeadership === undefined) return;
    // A process told of the loss exits (the CLI): it begins no term meanwhile, not even when the lease
    // comes back in the same tick (a paused leader taking a released lease) before its stop has begun.
    this.process = 'stopping';
    this.options.onLostLeadership();
  }

  /** A term comes into force; a Controller that ran already never starts again, so a term after it gets a fresh one. */
  private async begin(): Promise<void> {
    const term = this.term.controller.started ? this.newTerm(this.term.number + 1) : this.term;
    this.term = { ...term, state: { _tag: 'InForce' } };
    try {
      await term.controller.start();
    } catch (error) {
      this.options.logger.error({ err: String(error) }, 'controller did not start');
      this.elector?.abdicate();
    }
  }

  /**
   * The current term ends: out of force at once, its Controller stopped. An ending already begun is
   * waited for, not begun again: a Controller's second `stop` answers at once, as if nothing were in
   * flight, and the lease would be released too early.
   */
  private end(deadlineMs: number): Promise<boolean> {
    const { state, controller } = this.term;
    if (state._tag === 'Ended') return state.stopped;
    const stopped = controller.stop(deadlineMs);
    this.term = { ...this.term, state: { _tag: 'Ended', stopped } };
    return stopped;
  }

  private newTerm(number: number): Term {
    // Each term writes only while it is the term in force and the lease is provably held: a term that
    // lost the lease stays fenced even when this process leads again before its in-flight reconciles
    // have finished (they planned against a world another leader may have changed).
    const fence: TermFence | undefined =
      this.elector === undefined ? undefined : (target) => fenced(target, () => this.mayWrite(number), NOT_LEADING);
    return { number, controller: this.options.controllerFor(fence), state: { _tag: 'Waiting' } };
  }

  private mayWrite(number: number): boolean {
    return this.term.number === number && this.term.state._tag === 'InForce' && this.elector?.mayWrite() === true;
  }
}
