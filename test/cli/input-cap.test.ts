/**
 * Input is read with a byte cap while it streams: an endless stdin or a huge file is not read
 * past the cap (bounded memory), and the user gets one clear line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCapped, readFileCapped } from '../../app/cli/input/capped.js';
import { linesOf, runCli } from './support/run-cli.js';

const MiB = 1024 * 1024;

/** An endless stream of 64 KiB chunks that counts what was taken from it and whether it was closed. */
const endless = () => {
  const state = { chunks: 0, closed: false };
  const chunk = Buffer.alloc(64 * 1024, 'a');
  async function* stream(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        state.chunks += 1;
        yield chunk;
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, stream: stream() };
};

describe('readCapped', () => {
  it('stops reading an endless stream just past the cap and closes it', async () => {
    const { state, stream } = endless();
    expect(await readCapped(stream, MiB)).toEqual({ _tag: 'TooLarge' });
    expect(state.chunks).toBe(17); // 16 chunks are exactly 1 MiB: the 17th goes over
    expect(state.closed).toBe(true);
  });

  it('gives the whole text when it fits, multi-byte characters split across chunks included', async () => {
    const bytes = Buffer.from('é'.repeat(10));
    async function* split(): AsyncGenerator<Buffer> {
      yield bytes.subarray(0, 3);
      yield bytes.subarray(3);
    }
    expect(await readCapped(split(), 20)).toEqual({ _tag: 'Text', text: 'é'.repeat(10) });
    expect(await readCapped(split(), 19)).toEqual({ _tag: 'TooLarge' });
  });
});

describe('readFileCapped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kreconcile-cap-'));

  it('refuses a regular file larger than the cap from its size alone', async () => {
    writeFileSync(join(dir, 'big.yaml'), Buffer.alloc(2 * MiB, 'a'));
    expect(await readFileCapped(join(dir, 'big.yaml'), MiB)).toEqual({ _tag: 'TooLarge', size: 2 * MiB });
  });

  it('reads a file within the cap', async () => {
    writeFileSync(join(dir, 'small.yaml'), 'a: 1\n');
    expect(await readFileCapped(join(dir, 'small.yaml'), MiB)).toEqual({ _tag: 'Text', text: 'a: 1\n' });
  });

  it('stops reading an endless file (a device, as /dev/zero) at the cap', async () => {
    expect(await readFileCapped('/dev/zero', MiB)).toEqual({ _tag: 'TooLarge' });
  });

  it('rejects with the Node error code for a missing file or a directory', async () => {
    await expect(readFileCapped(join(dir, 'missing.yaml'), MiB)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readFileCapped(dir, MiB)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

describe('the CLI', () => {
  it('reports a file over the limit with its size, in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kreconcile-cap-'));
    writeFileSync(join(dir, 'big.yaml'), Buffer.alloc(33 * MiB, '#'));
    const result = await runCli(['plan', '-f', join(dir, 'big.yaml')]);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      `error: ${join(dir, 'big.yaml')}: input is 33.0 MiB, more than the 32.0 MiB limit: split it into several files`,
    ]);
  });

  it('the real executable stops reading an endless stdin at the cap: one line, exit 1', async () => {
    const child = spawn(process.execPath, ['app/cli/kreconcile.js', 'plan', '-f', '-'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.stdin.on('error', () => {
      /* EPIPE once the CLI stops reading and exits */
    });
    const chunk = Buffer.alloc(MiB, '#');
    let written = 0;
    const feed = (): void => {
      while (child.stdin.writable && written < 512 * MiB && child.stdin.write(chunk)) written += MiB;
      if (child.stdin.writable && written < 512 * MiB) {
        written += MiB;
        child.stdin.once('drain', feed);
      }
    };
    feed();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe(
      'error: <stdin>: input larger than 32.0 MiB: reading stopped there; split it into several files\n',
    );
    // It stopped long before the 512 MiB the test was ready to send.
    expect(written).toBeLessThan(128 * MiB);
  }, 60_000);
});
