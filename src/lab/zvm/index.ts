// The simulated ZVM's public surface for main.ts (--lab) and the tests.
export { startLabZvm, LAB_TLS, type LabZvm, type LabZvmOptions } from './server.js';
export { LabZvmFaults } from './faults.js';
export type { LabZvmState, LabCheckpoint, LabTask, LabFlrSession } from './state.js';
