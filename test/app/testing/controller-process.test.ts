/**
 * superviseController: the process gets KUBECONFIG pointing at a 0600 file in a private temp
 * directory (removed on stop), is restarted after each exit until its restarts run out (the
 * kit's own kills restarted too, never counted against them), and its output is kept bounded, newest last.
 */
import { existsSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { controllerReport, superviseController } from '../../../app/testing/controller-process.js';
import { eventually } from '../../support/eventually.js';

const node = (script: string) => [process.execPath, '-e', script] as const;

describe('superviseController', () => {
  it('passes the kubeconfig as a 0600 file, its only environment besides what it is given, and removes it on stop', async () => {
    const controller = await superviseController(
      {
        command: node(
          "const fs = require('fs'); const p = process.env.KUBECONFIG; console.log(JSON.stringify({ p, text: fs.readFileSync(p, 'utf8'), home: process.env.HOME ?? null, extra: process.env.EXTRA })); setInterval(() => {}, 1000);",
        ),
        env: { EXTRA: 'yes' },
      },
      'apiVersion: v1\nkind: Config\n',
    );
    try {
      await eventually(() => expect(controller.logTail(1)[0]).toMatch(/^stdout\| \{/), 15_000, 20);
      const line = controller.logTail(1)[0]?.slice('stdout| '.length) ?? '{}';
      const seen: unknown = JSON.parse(line);
      expect(seen).toMatchObject({ text: 'apiVersion: v1\nkind: Config\n', home: null, extra: 'yes' });
      const path = /"p":"([^"]+)"/.exec(line)?.[1] ?? '';
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(path.replace(/\/kubeconfig$/, '')).mode & 0o077).toBe(0);
      await controller.stop();
      expect(existsSync(path)).toBe(false);
      expect(controller.exits()).toEqual([]); // the kit's own stop is not an exit
    } finally {
      await controller.stop();
    }
  }, 30_000);

  it('restarts after each exit with backoff, then stays down; the report says so with the last output', async () => {
    const controller = await superviseController(
      { command: node("console.error('boom ' + Date.now()); process.exit(3)"), maxRestarts: 2, backoffMs: 20 },
      'kubeconfig',
    );
    try {
      await eventually(() => expect(controller.gaveUp()).toBe(true), 20_000, 20);
      const exits = controller.exits();
      expect(exits.map((exit) => exit.code)).toEqual([3, 3, 3]);
      expect(controller.running()).toBe(false);
      const report = controllerReport(controller);
      expect(report).toMatch(/^the controller exited with code 3 at \d+\.\d\d s, then exited with code 3/);
      expect(report).toContain('restarted 2 times, then stayed down (restarts ran out: CrashLoopBackOff)');
      expect(report.match(/stderr\| boom/g)).toHaveLength(3);
    } finally {
      await controller.stop();
    }
  }, 30_000);

  it("the kit's SIGKILL is an exit marked as its own: restarted, not counted towards maxRestarts", async () => {
    const controller = await superviseController(
      { command: node("console.log('up'); setInterval(() => {}, 1000);"), maxRestarts: 0, backoffMs: 20 },
      'kubeconfig',
    );
    try {
      for (const round of [1, 2]) {
        await eventually(() => expect(controller.running()).toBe(true), 15_000, 20);
        expect(await controller.kill()).toBe(true);
        await eventually(() => expect(controller.exits()).toHaveLength(round), 15_000, 20);
      }
      await eventually(() => expect(controller.running()).toBe(true), 15_000, 20);
      expect(controller.gaveUp()).toBe(false);
      expect(controller.exits().map(({ code, signal, byKit }) => ({ code, signal, byKit }))).toEqual([
        { code: null, signal: 'SIGKILL', byKit: true },
        { code: null, signal: 'SIGKILL', byKit: true },
      ]);
      expect(controllerReport(controller)).toMatch(
        /^the controller was killed by the kit \(SIGKILL, a fault\) at \d+\.\d\d s, then was killed by the kit .*; restarted 2 times\n/,
      );
    } finally {
      await controller.stop();
    }
  }, 30_000);

  it('keeps at most logBytes of output, the newest', async () => {
    const controller = await superviseController(
      {
        command: node("for (let i = 0; i < 2000; i++) console.log('line ' + i); setInterval(() => {}, 1000);"),
        logBytes: 1_000,
      },
      'kubeconfig',
    );
    try {
      await eventually(() => expect(controller.logTail(1)).toEqual(['stdout| line 1999']), 15_000, 20);
      const kept = controller.logTail(10_000);
      expect(kept.join('').length).toBeLessThanOrEqual(1_000);
      expect(kept.length).toBeGreaterThan(10);
    } finally {
      await controller.stop();
    }
  }, 30_000);
});
