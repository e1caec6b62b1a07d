/**
 * `[]byte` fields as kube-apiserver's JSON decoder reads them (Secret `data`, ConfigMap
 * `binaryData`): Go's `base64.StdEncoding.Decode`, which skips `\r` and `\n`, needs the padding,
 * and reports the first bad input byte (`illegal base64 data at input byte N`). A faithful port
 * (Node's decoder skips garbage silently), so the offset in the error is the server's; what the
 * server stores is the bytes re-encoded, so the canonical text is answered too. Pure (no Buffer):
 * the planner stores Secret data as the server does (core/canonical/canonical.ts).
 */
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const sextet = new Map([...alphabet].map((char, i) => [char, i] as const));

export type Base64Decoded =
  { readonly ok: true; readonly canonical: string } | { readonly ok: false; readonly message: string };

const corrupt = (offset: number): Base64Decoded => ({
  ok: false,
  message: `illegal base64 data at input byte ${offset}`,
});

const isNewline = (char: string | undefined): boolean => char === '\n' || char === '\r';

/**
 * One quantum (up to 4 characters) from `start`: the sextets read and where the next one starts, or the error offset.
 */
const quantum = (
  text: string,
  start: number,
):
  | { readonly sextets: ReadonlyArray<number>; readonly next: number; readonly end: boolean }
  | { readonly error: number } => {
  const sextets: number[] = [];
  let at = start;
  while (sextets.length < 4) {
    if (at === text.length) {
      if (sextets.length === 0) return { sextets, next: at, end: true };
      return { error: at - sextets.length };
    }
    const char = text[at] ?? '';
    at += 1;
    const value = sextet.get(char);
    if (value !== undefined) {
      sextets.push(value);
      continue;
    }
    if (isNewline(char)) continue;
    if (char !== '=' || sextets.length < 2) return { error: at - 1 };
    if (sextets.length === 2) {
      // "==" expected: the first "=" is read; newlines may come between.
      while (at < text.length && isNewline(text[at])) at += 1;
      if (at === text.length) return { error: text.length };
      if (text[at] !== '=') return { error: at - 1 };
      at += 1;
    }
    while (at < text.length && isNewline(text[at])) at += 1;
    return at < text.length ? { error: at } : { sextets, next: at, end: true };
  }
  return { sextets, next: at, end: false };
};

/** Standard base64 with padding of `bytes`. */
const base64OfBytes = (bytes: ReadonlyArray<number>): string => {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const triple = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += (alphabet[(triple >> 18) & 63] ?? '') + (alphabet[(triple >> 12) & 63] ?? '');
    out += i + 1 < bytes.length ? (alphabet[(triple >> 6) & 63] ?? '') : '=';
    out += i + 2 < bytes.length ? (alphabet[triple & 63] ?? '') : '=';
  }
  return out;
};

const bytesOf = (sextets: ReadonlyArray<number>): ReadonlyArray<number> => {
  if (sextets.length === 0) return [];
  const value = sextets.reduce((acc, s, i) => acc | (s << (18 - 6 * i)), 0);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff].slice(0, sextets.length - 1);
};

/** Decodes `text` as Go's standard (padded, non-strict) base64 decoder does. */
export const decodeGoBase64 = (text: string): Base64Decoded => {
  const bytes: number[] = [];
  let at = 0;
  while (at < text.length) {
    const read = quantum(text, at);
    if ('error' in read) return corrupt(read.error);
    bytes.push(...bytesOf(read.sextets));
    if (read.end) break;
    at = read.next;
  }
  return { ok: true, canonical: base64OfBytes(bytes) };
};
