/**
 * The server's own controllers, as the verbs see them: creates of custom resources wait while their CRD is
 * being cleaned up.
 */
export { admitWhileCrdTerminating } from './crd-cleanup.js';
