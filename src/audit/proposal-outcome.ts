// The final state of a confirmed proposal, recorded after its change ran or failed. By then the
// change may have happened, so a failure here must never turn into an error that tells the caller
// "nothing was changed": the store is asked to record the outcome (central mode's store holds it
// and retries until the database takes it), and if even that throws, the caller still gets what
// really happened and the failure goes to the log.
import type { Proposal, ProposalStore } from '../core/confirmation-store.js';
import type { Logger } from '../core/logger.js';

export async function recordProposalOutcome<P>(store: ProposalStore<P>, p: Proposal<P>, outcome: NonNullable<Proposal['outcome']>, logger: Logger): Promise<void> {
  try {
    await store.finish(p, outcome);
  } catch (err) {
    logger.error({ err: String(err), proposal_id: p.id, ok: outcome.ok }, 'the outcome of a confirmed proposal could not be recorded; the proposal may still show executing');
  }
}

/** Hands a proposal back to pending (nothing ran); a failure leaves it to the store's retry or the sweep. */
export async function releaseProposal<P>(store: ProposalStore<P>, p: Proposal<P>, logger: Logger): Promise<void> {
  try {
    await store.release(p);
  } catch (err) {
    logger.error({ err: String(err), proposal_id: p.id }, 'a proposal could not be handed back to pending');
  }
}
