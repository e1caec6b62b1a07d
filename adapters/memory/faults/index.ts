/** Seeded faults as the other folders see them: the watch faults a hub injects and the uid generator. */
export { uidFrom } from './prng.js';
