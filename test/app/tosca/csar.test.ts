/** CSAR archives: TOSCA.meta names the entry template; every malformed archive is a clear message. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { csarEntry } from '../../../app/tosca/csar.js';
import { csarOf, TOSCA_META, WEB_CSAR, WEB_TEMPLATE } from './templates.js';

const MAX = 1024 * 1024;

describe('csarEntry', () => {
  it('finds the entry template named by Entry-Definitions', () => {
    expect(csarEntry(WEB_CSAR(), MAX)).toEqual(E.right({ path: 'Definitions/web.yaml', text: WEB_TEMPLATE }));
  });

  it('accepts a leading slash or ./ in Entry-Definitions', () => {
    const archive = csarOf({
      'TOSCA-Metadata/TOSCA.meta': 'Entry-Definitions: ./Definitions/web.yaml\r\n',
      'Definitions/web.yaml': 'x: 1',
    });
    expect(csarEntry(archive, MAX)).toEqual(E.right({ path: 'Definitions/web.yaml', text: 'x: 1' }));
  });

  it.each([
    ['no TOSCA.meta', { 'Definitions/web.yaml': WEB_TEMPLATE }, 'no TOSCA-Metadata/TOSCA.meta in the archive'],
    [
      'no Entry-Definitions',
      { 'TOSCA-Metadata/TOSCA.meta': 'CSAR-Version: 1.1\n' },
      'TOSCA-Metadata/TOSCA.meta has no Entry-Definitions line',
    ],
    [
      'an entry the archive lacks',
      { 'TOSCA-Metadata/TOSCA.meta': TOSCA_META },
      'TOSCA-Metadata/TOSCA.meta names Definitions/web.yaml as Entry-Definitions, which the archive does not contain',
    ],
    [
      'a path leaving the archive',
      { 'TOSCA-Metadata/TOSCA.meta': 'Entry-Definitions: ../../etc/passwd\n' },
      'TOSCA-Metadata/TOSCA.meta: Entry-Definitions "../../etc/passwd" is not a path inside the archive',
    ],
  ])('%s', (_, files, message) => {
    expect(csarEntry(csarOf(files as Record<string, string>), MAX)).toEqual(E.left(message));
  });

  it('not a zip archive', () => {
    const result = csarEntry(new TextEncoder().encode('tosca_definitions_version: x'), MAX);
    expect(E.isLeft(result) && result.left).toMatch(/^not a readable zip archive/);
  });

  it('a file larger than the bound once inflated is refused before inflating it', () => {
    const archive = csarOf({ 'TOSCA-Metadata/TOSCA.meta': TOSCA_META, 'Definitions/web.yaml': 'x'.repeat(10_000) });
    expect(archive.length).toBeLessThan(1_000); // a zip bomb in miniature
    expect(csarEntry(archive, 4_096)).toEqual(
      E.left('Definitions/web.yaml is larger than 4096 bytes once inflated (10000)'),
    );
  });

  it('an entry that is not UTF-8 text', () => {
    const archive = csarOf({ 'TOSCA-Metadata/TOSCA.meta': TOSCA_META });
    const withBinary = csarOfBytes({
      'TOSCA-Metadata/TOSCA.meta': new TextEncoder().encode(TOSCA_META),
      'Definitions/web.yaml': new Uint8Array([0xff, 0xfe, 0x00]),
    });
    expect(E.isLeft(csarEntry(archive, MAX))).toBe(true);
    expect(csarEntry(withBinary, MAX)).toEqual(E.left('Definitions/web.yaml is not UTF-8 text'));
  });
});

import { zipSync } from 'fflate';
const csarOfBytes = (files: Record<string, Uint8Array>): Uint8Array => zipSync(files);
