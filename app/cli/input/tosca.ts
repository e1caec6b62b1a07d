/**
 * TOSCA Applications translated where the `-f` inputs are loaded, before anything plans or
 * validates them, with the operator's translator (app/tosca): inline `spec.tosca` templates
 * always; templates and CSARs by URL as the command's flags allow (docs/tosca.md, docs/cli.md).
 * The translation goes beside the Application (`ApplicationInput.translated`), never into its spec.
 */
import { Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import type { Application } from '../../../core/internal.js';
import { parseAllowlist } from '../../tosca/address-policy.js';
import { createFetcher, type Fetcher, type FetcherOptions } from '../../tosca/fetch.js';
import { createToscaTranslator, needsTranslation, type Translation } from '../../tosca/translator.js';
import type { Logger } from '../../logging/logger.js';
import { inputError, type CliError } from '../cli-error.js';
import { collect } from '../command.js';
import type { CliIo } from '../io.js';
import { subjectOf, type ApplicationInput } from './applications.js';
import { errorAt, locationOf } from './entries.js';

/** Where the CLI may read templates from: what the operator's flags allow it, plus the explicit fetch switch. */
export type ToscaAccess = {
  /** `--allow-tosca-fetch`: http(s) URLs are fetched (off: a URL template is an error naming the flag). */
  readonly fetch: boolean;
  /** `--tosca-file-root`: directories `file:` URLs may read below (none: `file:` is refused). */
  readonly fileRoots: ReadonlyArray<string>;
  /** `--tosca-allow-http`: plain http URLs too (default https only). */
  readonly allowHttp: boolean;
  /** `--tosca-allow-host`: loopback, private or link-local hosts and networks fetched from nonetheless. */
  readonly allowHosts: ReadonlyArray<string>;
};

/** The inputs, those defined by a template with their translation, and every translation problem. */
export type Translated = {
  readonly applications: ReadonlyArray<ApplicationInput>;
  readonly errors: ReadonlyArray<CliError>;
};

// The flags that set a `ToscaAccess` (plan, validate, snapshot), named as `kreconcile run` names its own.
export const allowToscaFetchOption = (): Option =>
  new Option(
    '--allow-tosca-fetch',
    'fetch spec.tosca/spec.csar URLs to translate them, as the operator does (https only, public addresses, 4 MiB, 10 s; default: a URL template is an error)',
  );

export const toscaFileRootOption = (): Option =>
  new Option(
    '--tosca-file-root <dir>',
    'read file: URLs in spec.tosca/spec.csar below this directory (repeatable; default: file: is refused)',
  )
    .argParser(collect)
    .default([], 'none');

export const toscaAllowHttpOption = (): Option =>
  new Option('--tosca-allow-http', 'with --allow-tosca-fetch: fetch plain http:// URLs too (default: https only)');

export const toscaAllowHostOption = (): Option =>
  new Option(
    '--tosca-allow-host <host|CIDR>',
    'with --allow-tosca-fetch: fetch from this host or network although it is loopback, private, link-local or metadata (repeatable)',
  )
    .argParser(collect)
    .default([], 'none');

export type ToscaFlags = {
  readonly allowToscaFetch?: boolean;
  readonly toscaFileRoot: ReadonlyArray<string>;
  readonly toscaAllowHttp?: boolean;
  readonly toscaAllowHost: ReadonlyArray<string>;
};

/**
 * The access the flags give.
 * Errors: `--tosca-allow-http`/`--tosca-allow-host` without `--allow-tosca-fetch` (they would do
 * nothing); a `--tosca-allow-host` that is no host name, address or CIDR network.
 */
export const toscaAccessOf = (flags: ToscaFlags): E.Either<string, ToscaAccess> => {
  const fetch = flags.allowToscaFetch === true;
  if (!fetch && (flags.toscaAllowHttp === true || flags.toscaAllowHost.length > 0))
    return E.left(
      `${flags.toscaAllowHttp === true ? '--tosca-allow-http' : '--tosca-allow-host'} loosens how templates are fetched: add --allow-tosca-fetch to fetch them`,
    );
  const hosts = parseAllowlist(flags.toscaAllowHost);
  if ('error' in hosts) return E.left(`--tosca-allow-host ${hosts.error}`);
  return E.right({
    fetch,
    fileRoots: flags.toscaFileRoot,
    allowHttp: flags.toscaAllowHttp === true,
    allowHosts: flags.toscaAllowHost,
  });
};

/**
 * Translates every Application defined by a TOSCA template or CSAR, one after the other. With
 * `undefined` access (`run --memory`), inline templates are translated (so they are checked) and
 * templates by URL left to the operator, which fetches them under its own flags.
 * Errors: each translation that fails (template errors with their paths, fetch refusals naming the
 * flag to pass), located at the Application's `spec.tosca`/`spec.csar`.
 */
export const translateInputs = async (
  io: CliIo,
  inputs: ReadonlyArray<ApplicationInput>,
  access: ToscaAccess | undefined,
): Promise<Translated> => {
  const pending = inputs.filter((input) => needsTranslation(input.application) && translatable(input, access));
  if (pending.length === 0) return { applications: inputs, errors: [] };
  const details = fetchDetails();
  const fetcher = guarded(access, (io.toscaFetcher ?? createFetcher)(fetcherOptions(access, details.logger)), details);
  const translate = createToscaTranslator({ fetcher });
  const errors: CliError[] = [];
  const translated = new Map<ApplicationInput, ApplicationInput>();
  for (const input of pending) {
    const result: Translation = await translate(input.application);
    if (result._tag === 'Translated') translated.set(input, { ...input, translated: result.manifest });
    else if (result._tag === 'Invalid') errors.push(...translationErrors(input, result.message));
  }
  return { applications: inputs.map((input) => translated.get(input) ?? input), errors };
};

/** Without access, only inline templates (a URL is the operator's to fetch). */
const translatable = (input: ApplicationInput, access: ToscaAccess | undefined): boolean =>
  access !== undefined || typeof sourceOf(input.application).value !== 'string';

/** The template field an Application uses and its value. */
export const sourceOf = (application: Application): { readonly field: 'tosca' | 'csar'; readonly value: unknown } =>
  application.spec.csar !== undefined
    ? { field: 'csar', value: application.spec.csar }
    : { field: 'tosca', value: application.spec.tosca };

/**
 * The operator's bounds (defaults of app/tosca/fetch.ts), the roots and hosts the flags name; no cache beyond this run.
 */
const fetcherOptions = (access: ToscaAccess | undefined, logger: Logger): FetcherOptions => ({
  fileRoots: access?.fileRoots ?? [],
  allowHttp: access?.allowHttp ?? false,
  allowHosts: access?.allowHosts ?? [],
  logger,
});

/**
 * Why a URL is refused before any fetch: the switch or the root it needs is missing. The
 * operator's own messages name `kreconcile run`; these name the flags of the command at hand.
 */
const refusal = (url: string, access: ToscaAccess | undefined): string | undefined => {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if ((scheme === 'https' || scheme === 'http') && access?.fetch !== true)
    return "a template by URL is fetched only with --allow-tosca-fetch (under the operator's bounds), or write the template inline in spec.tosca";
  if (scheme === 'http' && access?.allowHttp !== true)
    return 'a plain http URL: use https (or allow http with --tosca-allow-http)';
  if (scheme === 'file' && (access?.fileRoots ?? []).length === 0)
    return 'file: URLs are read only below a directory named with --tosca-file-root DIR';
  return undefined;
};

type FetchDetails = { readonly logger: Logger; take(): string | undefined };

/**
 * The reason the fetcher logs for a failed fetch. The operator keeps it out of the tenant-visible
 * status (no port scanning through it); the CLI's user named the URL and runs the fetch, so the
 * reason is what tells them what to change (e.g. `--tosca-allow-host`).
 */
const fetchDetails = (): FetchDetails => {
  let last: string | undefined;
  const record = (fields: object): void => {
    const detail = 'detail' in fields ? fields.detail : undefined;
    if (typeof detail === 'string') last = detail;
  };
  return {
    logger: { debug: () => {}, info: () => {}, warn: record, error: record },
    take: () => {
      const detail = last;
      last = undefined;
      return detail;
    },
  };
};

/** The fetcher behind the refusals above; a failure the fetcher explained in its log gets that explanation. */
const guarded =
  (access: ToscaAccess | undefined, fetcher: Fetcher, details: FetchDetails): Fetcher =>
  async (url) => {
    const refused = refusal(url, access);
    if (refused !== undefined) return E.left({ url, message: refused, retryable: false });
    details.take();
    const fetched = await fetcher(url);
    const detail = details.take();
    return E.isLeft(fetched) && detail !== undefined
      ? E.left({ ...fetched.left, message: `cannot fetch: ${explained(detail)}` })
      : fetched;
  };

// The system errors a fetch most often ends with, in words (others stay as their code).
const ERRNO: Readonly<Record<string, string>> = {
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved now',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
};

const explained = (detail: string): string => {
  const words = ERRNO[detail];
  return words === undefined ? detail : `${words} (${detail})`;
};

// A path as the core shows it (`spec.tosca.topology_template.node_templates.web`, `…["a b"]`, `…[0]`), then `: `.
const ISSUE_PATH = /^(spec\.(?:tosca|csar)(?:\.[A-Za-z_$][A-Za-z0-9_$-]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*): /;

/**
 * One error per problem of a failed translation (the translator joins them with `; `), each at the
 * line of its path in an inline template, or at `spec.tosca`/`spec.csar` for a fetched one.
 */
const translationErrors = (input: ApplicationInput, message: string): ReadonlyArray<CliError> => {
  const subject = subjectOf(input.application);
  const field = `spec.${sourceOf(input.application).field}`;
  return message.split(/; (?=spec\.(?:tosca|csar)\b)/).map((part) => {
    const path = ISSUE_PATH.exec(part);
    if (path !== null) return errorAt(input.origin, path[1] ?? field, part.slice(path[0].length), subject);
    // `spec.csar (https://…) Definitions/web.yaml.topology_template: …`: the source names itself.
    return inputError(part.startsWith('spec.') ? part : `${field}: ${part}`, {
      location: locationOf(input.origin, field),
      subject,
    });
  });
};
