/**
 * The live objects that concern one Application (in the core since the fleet plan uses them: core/fleet/live-index.ts).
 */
export {
  desiredRefs,
  indexLive,
  liveObjectsFor,
  liveObjectsIn,
  type LiveObjectIndex as LiveIndex,
} from '../../../core/internal.js';
