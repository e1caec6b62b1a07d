/**
 * `--approve <digest>` and `--approvals-file <file>`: the approvals of denied plans in CI. The
 * pipeline takes them from a place the change under review cannot write (a protected
 * environment's variable, a file on the protected branch, a reviewer's input), never from the
 * `-f` files (docs/decisions/0026-approvals-outside-the-change.md).
 */
import { Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { collect } from '../command.js';
import { inputError, usageError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { readSource } from '../input/source.js';

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** An approvals file is a list of digests: anything near this size is not one. */
const MAX_APPROVALS_BYTES = 256 * 1024;

const WHAT = 'an approval is a plan digest, sha256: and 64 hexadecimal digits, as the denied plan printed it';

/** The digests approved by `--approve` and `--approvals-file` (one digest a line, `#` comments), or every problem. */
export const readApprovals = async (
  io: CliIo,
  flags: { readonly approve: ReadonlyArray<string>; readonly approvalsFile?: string },
): Promise<E.Either<ReadonlyArray<CliError>, ReadonlySet<string>>> => {
  const problems: CliError[] = flags.approve
    .filter((digest) => !DIGEST.test(digest.trim()))
    .map((digest) => usageError(`--approve ${JSON.stringify(digest)}: ${WHAT}`));
  const approved = flags.approve.map((digest) => digest.trim());
  if (flags.approvalsFile !== undefined) {
    const source = await readSource(io, flags.approvalsFile, { maxBytes: MAX_APPROVALS_BYTES });
    if (E.isLeft(source)) return E.left([...problems, source.left]);
    source.right.text.split('\n').forEach((raw, index) => {
      const line = raw.replace(/#.*$/, '').trim();
      if (line === '') return;
      if (DIGEST.test(line)) approved.push(line);
      else
        problems.push(
          inputError(`${JSON.stringify(line.slice(0, 80))} is not a plan digest: ${WHAT}`, {
            location: { file: source.right.name, line: index + 1 },
          }),
        );
    });
  }
  return problems.length > 0 ? E.left(problems) : E.right(new Set(approved));
};

/** `--approve <digest>` (repeatable). */
export const approveOption = (): Option =>
  new Option(
    '--approve <digest>',
    'with --guard: approve the denied plan of this digest (sha256:…, as the denial printed it); take it from a place the change cannot write (docs/ci.md, "Approvals"); repeatable',
  )
    .argParser(collect)
    .default([], 'none');

/** `--approvals-file <file>`: one digest a line. */
export const approvalsFileOption = (): Option =>
  new Option(
    '--approvals-file <file>',
    'with --guard: approved plan digests, one a line (# comments); a file from a protected branch or environment, never from the change under review',
  );
