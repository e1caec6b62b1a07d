/**
 * `kreconcile … | head`: a reader that goes away before the output is written ends the command
 * quietly (as git and kubectl do), never with Node's unhandled 'error' event and its stack trace.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('the executable when its reader leaves', () => {
  it('ends without a stack trace when stdout is closed before the help is written', async () => {
    const child = spawn(process.execPath, ['app/cli/kreconcile.js', 'plan', '--help'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader leaves at once: every write of the child then fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 30_000);
});
