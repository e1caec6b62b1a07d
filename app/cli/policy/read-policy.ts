/**
 * Admin-written files for `kreconcile run` and `kreconcile plan`, read and decoded at the boundary;
 * every problem is one line naming file:line and the field:
 * - `--policy <file>`: the tenancy policy;
 * - `--field-managers <file>`: field managers whose fields are left to them (docs/field-owners.md).
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import {
  decodeWith,
  knownManagersCodec,
  policyOf,
  TenancyPolicyDocument,
  type KnownManager,
  type TenancyPolicy,
} from '../../../core/internal.js';
import { inputError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { parseDocuments } from '../input/documents.js';
import { DEFAULT_LIMITS } from '../input/limits.js';
import { parsePath } from '../input/parse-path.js';
import { readSource } from '../input/source.js';

/** A policy is a few rules: anything near this size is not one. */
const MAX_POLICY_BYTES = 1024 * 1024;

/** What a file is, for its error messages. */
type FileKind<A> = {
  /** `policy`: error lines say "the policy file". */
  readonly noun: string;
  readonly codec: t.Decoder<unknown, A>;
  /** Where the format is described, appended to every problem. */
  readonly hint: string;
  /** What to write when the file is empty. */
  readonly whenEmpty: string;
};

/** The one YAML or JSON document in `file`, decoded, or every problem found in it. */
const readAdminFile = async <A>(
  io: CliIo,
  file: string,
  kind: FileKind<A>,
): Promise<E.Either<ReadonlyArray<CliError>, A>> => {
  const source = await readSource(io, file, { maxBytes: MAX_POLICY_BYTES });
  if (E.isLeft(source)) return E.left([source.left]);
  const documents = parseDocuments(source.right, DEFAULT_LIMITS);
  if (E.isLeft(documents)) return documents;
  const [document, ...more] = documents.right;
  if (document === undefined)
    return E.left([
      inputError(`the ${kind.noun} file is empty: ${kind.whenEmpty} (${kind.hint})`, {
        location: { file: source.right.name },
      }),
    ]);
  if (more.length > 0)
    return E.left([
      inputError(`a ${kind.noun} file holds one document: merge them into one`, { location: more[0]!.locate([]) }),
    ]);
  const decoded = decodeWith(kind.codec, document.value, '');
  if (E.isRight(decoded)) return decoded;
  return E.left(
    decoded.left.map((issue) =>
      inputError(`${issue.message} (${kind.hint})`, {
        location: document.locate(parsePath(issue.path)),
        ...(issue.path === '' ? {} : { path: issue.path }),
      }),
    ),
  );
};

/** The tenancy policy in `file` (`--policy`). */
export const readPolicy = async (io: CliIo, file: string): Promise<E.Either<ReadonlyArray<CliError>, TenancyPolicy>> =>
  E.map(policyOf)(
    await readAdminFile(io, file, {
      noun: 'policy',
      codec: TenancyPolicyDocument,
      hint: 'see docs/security.md, "Policy file reference"',
      whenEmpty: 'write destinations, clusterKinds or adoption',
    }),
  );

/** The known managers in `file` (`--field-managers`), added to `DEFAULT_KNOWN_MANAGERS`. */
export const readFieldManagers = async (
  io: CliIo,
  file: string,
): Promise<E.Either<ReadonlyArray<CliError>, ReadonlyArray<KnownManager>>> =>
  readAdminFile(io, file, {
    noun: 'field managers',
    codec: knownManagersCodec,
    hint: 'see docs/field-owners.md',
    whenEmpty: 'write a list of {manager, paths, controller}',
  });
