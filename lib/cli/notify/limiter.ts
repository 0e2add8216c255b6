/**
 * The rate limits of `notify` (docs/top.md), pure with the clock passed in. Per session: the same
 * kind of notice again within `perSession` ms is dropped (a session flapping between waiting and busy
 * is one notice). Overall: at most one notification per `gap` ms; what arrives inside the gap waits,
 * and leaves as one notification when the gap has passed (several merged into one summary), so a
 * burst of sessions never becomes a burst of pop-ups and nothing is lost.
 */
import type { Notice } from './transitions.js';

export interface Outgoing {
  notices: Notice[];
}

export class Limiter {
  private readonly lastPerSession = new Map<string, number>();
  private lastSent = -Infinity;
  private held: Notice[] = [];

  constructor(
    private readonly gap: number,
    private readonly perSession: number,
  ) {}

  /** Offers a notice at `now`: what to send now (possibly nothing), and whether some are held. */
  offer(notice: Notice, now: number): Outgoing | undefined {
    const id = `${notice.event}\0${notice.key}`;
    const previous = this.lastPerSession.get(id);
    if (previous !== undefined && now - previous < this.perSession) return undefined;
    this.lastPerSession.set(id, now);
    // Held once per session and event (the latest text): with --per-session shorter than the gap, a
    // flapping session would otherwise be counted as many sessions and held without bound.
    const at = this.held.findIndex((h) => h.event === notice.event && h.key === notice.key);
    if (at >= 0) this.held[at] = notice;
    else this.held.push(notice);
    return this.release(now);
  }

  /** What may go now: everything held, once the gap since the last notification has passed. */
  release(now: number): Outgoing | undefined {
    if (this.held.length === 0 || now - this.lastSent < this.gap) return undefined;
    this.lastSent = now;
    const notices = this.held;
    this.held = [];
    return { notices };
  }

  /** When release() will next have something to send, or undefined. */
  dueAt(): number | undefined {
    return this.held.length === 0 ? undefined : this.lastSent + this.gap;
  }

  /** Forgets sessions whose last notice is older than the per-session window (bounded memory). */
  sweep(now: number): void {
    for (const [id, at] of this.lastPerSession) if (now - at >= this.perSession) this.lastPerSession.delete(id);
  }
}
