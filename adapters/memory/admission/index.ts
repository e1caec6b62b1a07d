/** Mutating admission on the in-memory API server (a model of admission policies and webhooks). */
export { admitted, type AdmissionOperation, type MutatingAdmission } from './mutating-admission.js';
