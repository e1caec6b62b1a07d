/** Base64 of a string's UTF-8 bytes: Secret `data` values, without Buffer (the core imports no Node API). */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The UTF-8 bytes of `text` (lone surrogates become U+FFFD, as TextEncoder does). */
export const utf8Bytes = (text: string): ReadonlyArray<number> => {
  const bytes: number[] = [];
  for (const char of text) {
    const point = char.codePointAt(0) ?? 0xfffd;
    const code = point >= 0xd800 && point <= 0xdfff ? 0xfffd : point;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else
      bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
  }
  return bytes;
};

/** Standard base64 (with padding) of the UTF-8 encoding of `text`, as Kubernetes stores Secret data. */
export const base64Of = (text: string): string => {
  const bytes = utf8Bytes(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    const triple = (a << 16) | (b << 8) | c;
    out += ALPHABET[(triple >> 18) & 63]! + ALPHABET[(triple >> 12) & 63]!;
    out += i + 1 < bytes.length ? ALPHABET[(triple >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? ALPHABET[triple & 63]! : '=';
  }
  return out;
};

/** The bytes of standard base64 text (padding optional), or `undefined` when it is not base64. */
export const base64Bytes = (text: string): ReadonlyArray<number> | undefined => {
  const clean = text.replace(/=+$/, '');
  if (clean.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(clean)) return undefined;
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of clean) {
    buffer = (buffer << 6) | ALPHABET.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return bytes;
};
