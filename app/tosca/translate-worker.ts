/**
 * Entry of the worker thread that translates templates, fetched or inline (see isolated.ts): one job in,
 * one `Translation` out. Runs with a bounded heap and is terminated on timeout, so a hostile
 * template can neither exhaust the operator's memory nor stall its event loop (and `/healthz`).
 */
import { parentPort } from 'node:worker_threads';
import { translateBody, type TranslationJob } from './translation.js';

parentPort?.once('message', (job: TranslationJob) => {
  parentPort?.postMessage(translateBody(job));
});
