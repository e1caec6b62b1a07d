/** Seeded faults as the other folders see them: the watch faults a hub injects and the uid generator. */
export type { EventFaults } from './fault-injector.js';
export { uidFrom } from './prng.js';
