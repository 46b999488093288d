import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthChangeFeed } from '../persistence/auth-change-feed.ts';
import type { ApiTokenRepository, TokenOwner } from '../persistence/repositories/api-token-repository.ts';
import type { UserRecord, UserRepository } from '../persistence/repositories/user-repository.ts';
import type { UserStateCache } from '../persistence/user-state-cache.ts';

const TOKEN_PREFIX = 'tp_';
const LAST_USED_RESOLUTION_MS = 60_000;
const MAX_CACHED_TOKENS = 10_000;

/** A successful lookup, reusable while the change feed returns the identity it was made under. */
interface CachedOwner {
  owner: TokenOwner;
  epoch: object;
}

export function generateApiToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** AUTH-1: tokens are stored as sha256 hashes and compared in constant time. */
export class ApiTokenService {
  readonly #users: UserRepository;
  readonly #tokens: ApiTokenRepository;
  readonly #lastRecorded = new Map<string, number>();
  readonly #states: Pick<UserStateCache, 'observe'> | undefined;
  readonly #changes: AuthChangeFeed | undefined;
  /**
   * Keyed by the token itself, so a hit costs no hashing (the process holds every request's token anyway, and a Map's
   * seeded string hashing gives a caller no comparison to time). Only successful lookups are kept.
   */
  readonly #cache = new Map<string, CachedOwner>();

  /**
   * `states` learns each caller's `state_version` from the token lookup (issue 11's cross-instance caches).
   * `changes` lets a lookup be reused until a token or user row may have changed anywhere (auth-change-feed.ts;
   * the database hears of this process's own writes itself).
   */
  constructor(
    users: UserRepository,
    tokens: ApiTokenRepository,
    states?: Pick<UserStateCache, 'observe'>,
    changes?: AuthChangeFeed,
  ) {
    this.#users = users;
    this.#tokens = tokens;
    this.#states = states;
    this.#changes = changes;
  }

  /** Creates a user and their first token; the token is returned once and never stored. */
  async createUser(
    name: string,
    options: { isAdmin?: boolean; label?: string } = {},
  ): Promise<{
    user: UserRecord;
    token: string;
  }> {
    const user = await this.#users.create({ name, isAdmin: options.isAdmin ?? false });
    return { user, token: await this.issueToken(user.id, options.label ?? 'initial') };
  }

  /** Creates the user unless the name is taken (instances bootstrapping at once); undefined when it was. */
  async createUserIfAbsent(
    name: string,
    options: { isAdmin?: boolean; label?: string } = {},
  ): Promise<{ user: UserRecord; token: string } | undefined> {
    const user = await this.#users.createIfAbsent({ name, isAdmin: options.isAdmin ?? false });
    if (user === undefined) return undefined;
    return { user, token: await this.issueToken(user.id, options.label ?? 'initial') };
  }

  async issueToken(userId: string, label: string): Promise<string> {
    const token = generateApiToken();
    await this.#tokens.create(userId, hashApiToken(token), label);
    return token;
  }

  async authenticate(token: string): Promise<UserRecord | undefined> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 256) return undefined;
    // Read before the lookup: a change committed while it runs leaves the entry under an identity already replaced.
    const epoch = this.#changes?.current();
    const hit = epoch === undefined ? undefined : this.#cache.get(token);
    const owner = hit !== undefined && hit.epoch === epoch ? hit.owner : await this.#lookUp(token);
    if (owner === undefined) {
      this.#cache.delete(token);
      return undefined;
    }
    if (epoch !== undefined && hit?.owner !== owner) this.#remember(token, { owner, epoch });
    this.#recordUse(owner.tokenId);
    this.#states?.observe(owner.user.id, owner.stateVersion);
    return owner.user;
  }

  async #lookUp(token: string): Promise<TokenOwner | undefined> {
    const hash = hashApiToken(token);
    const owner = await this.#tokens.findOwnerByHash(hash);
    if (owner === undefined) return undefined;
    // The lookup is by hash already; the constant-time check keeps the comparison itself free of timing signal.
    const expected = Buffer.from(owner.tokenHash, 'hex');
    const actual = Buffer.from(hash, 'hex');
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
    return owner;
  }

  #remember(token: string, entry: CachedOwner): void {
    this.#cache.delete(token);
    if (this.#cache.size >= MAX_CACHED_TOKENS) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(token, entry);
  }

  /** `last_used_at` at most once a minute per token per instance: a write on every request would cost throughput. */
  #recordUse(tokenId: string): void {
    const now = Date.now();
    if (now - (this.#lastRecorded.get(tokenId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.#lastRecorded.set(tokenId, now);
    if (this.#lastRecorded.size > 10_000) this.#lastRecorded.clear();
    this.#tokens.touch(tokenId, new Date(now).toISOString()).catch(() => {});
  }
}
