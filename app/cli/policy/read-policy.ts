/**
 * Admin-written files for `kreconcile run` and `kreconcile plan`, read and decoded at the boundary;
 * every problem is one line naming file:line and the field:
 * - `--policy <file>`: the tenancy policy;
 * - `--field-managers <file>`: field managers whose fields are left to them (docs/field-owners.md).
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import {
  knownManagersCodec,
  policyOf,
  TenancyPolicyDocument,
  type KnownManager,
  type TenancyPolicy,
} from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import { decodeDocument, readOneDocument, type OneDocumentKind } from '../input/one-document.js';

const MAX_POLICY_BYTES = 1024 * 1024;

/** A policy is a few rules: anything near this size is not one. */
const POLICY_FILE = { maxBytes: MAX_POLICY_BYTES, whenSeveral: 'merge them into one' };

/** The one YAML or JSON document in `file`, decoded, or every problem found in it. */
const readAdminFile = <A>(
  io: CliIo,
  file: string,
  kind: Pick<OneDocumentKind, 'noun' | 'hint' | 'whenEmpty'> & { readonly codec: t.Decoder<unknown, A> },
): Promise<E.Either<ReadonlyArray<CliError>, A>> =>
  pipe(
    readOneDocument(io, file, { ...POLICY_FILE, ...kind }),
    TE.flatMapEither(({ document }) => decodeDocument(kind.codec, document, kind.hint)),
  )();

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
