/**
 * Every message that goes into a status is bounded (issue 37 item 5): a tenant's object can make
 * a message as large as the object (a readiness rule's values, an error quoting a field), and a
 * status over the API server's request limit makes every status write fail. One bound, in bytes
 * of UTF-8, applied where conditions are built (conditions.ts) and to each readiness reason.
 */
import { utf8Bytes } from '../json/base64.js';

/** Longest message of a condition, in bytes: room for a few readiness reasons, far below any request limit. */
export const MAX_STATUS_MESSAGE_BYTES = 4_096;

const MARKER = '… (truncated)';

/** The longest prefix of `text` of at most `maxBytes` bytes of UTF-8 that does not split a character. */
const prefixWithin = (text: string, maxBytes: number): string => {
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    const size = utf8Bytes(character).length;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += character.length;
  }
  return text.slice(0, end);
};

/** `text` when it fits `maxBytes` bytes of UTF-8, else its start and `… (truncated)`, within `maxBytes` in all. */
export const capMessage = (text: string, maxBytes: number = MAX_STATUS_MESSAGE_BYTES): string => {
  // Most messages are short: a character is at most 3 bytes of UTF-8 per UTF-16 unit.
  if (text.length * 3 <= maxBytes || utf8Bytes(text).length <= maxBytes) return text;
  return `${prefixWithin(text, maxBytes - utf8Bytes(MARKER).length)}${MARKER}`;
};
