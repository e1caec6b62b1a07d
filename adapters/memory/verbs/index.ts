/** The verbs the controllers and the typing step reuse: server-side writes, deletes, lists and deletion state. */
export { deleteStored, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './delete-verb.js';
export { listObjects } from './read-verbs.js';
export { systemWrite, withoutFinalizer } from './system-write.js';
export { isDeleting } from './write-common.js';
export {
  DEFAULT_MAX_OBJECT_BYTES,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  requestTooLarge,
  withinRequestLimit,
} from './storage-limit.js';
