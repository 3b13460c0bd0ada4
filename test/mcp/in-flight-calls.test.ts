// Draining calls at shutdown: a call that finishes within the grace period keeps its own answer; a
// call still running after it is aborted (its handler answers cancelled) and drain waits for that
// answer; the caller's own cancel still reaches the handler.
import { describe, expect, it } from 'vitest';
import { InFlightCalls } from '../../src/mcp/in-flight-calls.js';

/** A handler that runs until its signal aborts, then answers with the abort reason. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve(`cancelled: ${(signal.reason as Error).message ?? signal.reason}`)));

describe('InFlightCalls', () => {
  it('lets a quick call finish with its own answer', async () => {
    const calls = new InFlightCalls();
    let release!: () => void;
    const answer = calls.track(new AbortController().signal, () => new Promise<string>((r) => { release = () => r('done'); }));
    const drained = calls.drain({ graceMs: 60_000 });
    release();
    await drained;
    await expect(answer).resolves.toBe('done');
    expect(calls.size).toBe(0);
  });

  it('aborts a call still running after the grace period and waits for its answer', async () => {
    const calls = new InFlightCalls();
    const answer = calls.track(new AbortController().signal, untilAborted);
    await calls.drain({ graceMs: 1, cancelWaitMs: 60_000 });
    await expect(answer).resolves.toBe('cancelled: the server is shutting down');
    expect(calls.size).toBe(0);
  });

  it('passes the caller\'s own cancel through', async () => {
    const calls = new InFlightCalls();
    const caller = new AbortController();
    const answer = calls.track(caller.signal, untilAborted);
    caller.abort(new Error('user cancelled'));
    await expect(answer).resolves.toBe('cancelled: user cancelled');
  });
});
