/**
 * The server's own controllers (garbage collector, namespaces, storage protection, CRDs, workloads), run
 * after writes by one scheduler. They sit above the verbs: no other folder imports them.
 */
export { createControllerScheduler, type ControllerScheduler } from './background-controllers.js';
