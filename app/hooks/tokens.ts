/**
 * Hook tokens on the runtime side: generated with node:crypto once per Application, kept in the
 * hook Secret, read back from the live Secret at every reconcile — never from status, logs or events.
 */
import { randomBytes } from 'node:crypto';
import {
  getOwn,
  hookSecretKeys,
  isHookSecret,
  isJsonObject,
  isOwnedBy,
  type Application,
  type Hook,
  type HookContext,
  type HookOwner,
  type JsonObject,
  type Resource,
} from '../../core/internal.js';

/** 256 random bits, URL-safe: a bearer token no one guesses. */
export const generateToken = (): string => randomBytes(32).toString('base64url');

/** The hooks an Application enables, in the order the core runs them. */
export const enabledHooks = (application: Application): ReadonlyArray<Hook> => {
  const named = application.spec.hooks;
  // Most Applications name none: asked at every reconcile, answered without a new array.
  if (named === undefined || named.length === 0) return NO_HOOKS;
  return HOOK_ORDER.filter((hook) => named.includes(hook));
};

const HOOK_ORDER: ReadonlyArray<Hook> = ['complete', 'shutdown'];
const NO_HOOKS: ReadonlyArray<Hook> = Object.freeze([]);

export const ownerOfApp = (application: Application): HookOwner => ({
  namespace: application.metadata.namespace ?? 'default',
  name: application.metadata.name,
});

/**
 * The tokens of `hook` in the live hook Secrets this owner owns, the Application's namespace
 * first, then by namespace (a deterministic choice when Secrets disagree). A Secret with the
 * right name but not our owner mark is ignored: whoever planted it does not choose our token.
 */
export const liveTokens = (objects: ReadonlyArray<Resource>, owner: HookOwner, hook: Hook): ReadonlyArray<string> => {
  const secrets = objects
    .filter((object) => isHookSecret(object, owner) && isOwnedBy(object, owner))
    .sort(
      (a, b) =>
        rank(a, owner) - rank(b, owner) || (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? ''),
    );
  return [...new Set(secrets.flatMap((secret) => decoded(secret, hookSecretKeys(hook).token)))];
};

const rank = (secret: Resource, owner: HookOwner): number => (secret.metadata.namespace === owner.namespace ? 0 : 1);

const decoded = (secret: JsonObject, key: string): ReadonlyArray<string> => {
  const data = getOwn(secret, 'data');
  const value = isJsonObject(data) ? getOwn(data, key) : undefined;
  if (typeof value !== 'string' || value === '') return [];
  const text = Buffer.from(value, 'base64').toString('utf8');
  return text === '' ? [] : [text];
};

/**
 * Per Application, the tokens in force and the `HookContext` built from them. Tokens live in
 * memory only as a fallback while the Secret is being (re)created; the Secret is authoritative.
 */
export class HookTokens {
  private readonly known = new Map<
    string,
    { readonly tokens: Readonly<Partial<Record<Hook, string>>>; readonly context: HookContext }
  >();
  /** `namespace/name` → the key in `known` last planned with (the callback server looks tokens up by name). */
  private readonly byName = new Map<string, string>();

  constructor(private readonly generate: () => string = generateToken) {}

  /**
   * The hook context for planning `application`, given its live objects (hook Secrets included).
   * Guarantees: a token found in a live Secret is used as is; otherwise the one remembered for this
   * Application; otherwise a new one. Equal results are the same object (the planner caches by identity).
   */
  contextFor(application: Application, live: ReadonlyArray<Resource>, callbackUrl: string): HookContext {
    const owner = ownerOfApp(application);
    const key = keyOf(application);
    const before = this.known.get(key);
    // Keys are hooks (enabledHooks), values tokens: Object.fromEntries cannot keep the key type.
    const tokens = Object.fromEntries(
      enabledHooks(application).map(
        (hook) => [hook, liveTokens(live, owner, hook)[0] ?? before?.tokens[hook] ?? this.generate()] as const,
      ),
    ) as Partial<Record<Hook, string>>;
    if (before !== undefined && before.context.callbackUrl === callbackUrl && sameTokens(before.tokens, tokens))
      return before.context;
    const context: HookContext = { callbackUrl, tokens };
    this.known.set(key, { tokens, context });
    this.byName.set(nameOf(application), key);
    return context;
  }

  /**
   * The tokens in force for the Application `namespace/name`, from memory (no API call): what the
   * callback server authenticates against. Undefined when this operator has not planned it.
   */
  tokensFor(namespace: string, name: string): Readonly<Partial<Record<Hook, string>>> | undefined {
    const key = this.byName.get(`${namespace}/${name}`);
    return key === undefined ? undefined : this.known.get(key)?.tokens;
  }

  /** Drops what is remembered of a deleted Application. */
  forget(namespace: string, name: string): void {
    for (const key of this.known.keys()) if (key.startsWith(`${namespace}/${name}/`)) this.known.delete(key);
    this.byName.delete(`${namespace}/${name}`);
  }

  /** Applications with tokens in memory (tests). */
  get size(): number {
    return this.known.size;
  }
}

const nameOf = (application: Application): string =>
  `${application.metadata.namespace ?? 'default'}/${application.metadata.name}`;

// The uid keeps a re-created Application of the same name from inheriting a token by accident.
const keyOf = (application: Application): string =>
  `${application.metadata.namespace ?? 'default'}/${application.metadata.name}/${application.metadata.uid ?? ''}`;

const sameTokens = (a: Readonly<Partial<Record<Hook, string>>>, b: Readonly<Partial<Record<Hook, string>>>): boolean =>
  a.complete === b.complete && a.shutdown === b.shutdown;
