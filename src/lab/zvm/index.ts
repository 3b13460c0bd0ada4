// The simulated ZVM's public surface for main.ts (--lab) and the tests (whose switches are in
// testing/faults.ts, imported by tests only).
export { startLabZvm, LAB_TLS, type LabZvm, type LabZvmOptions } from './server.js';
export { LabZvmBehaviour, type RemoteFlrRule } from './behaviour.js';
export { LabJournal, type LabCheckpoint } from './journal.js';
export type { LabZvmState, LabTask, LabFlrSession } from './state.js';
