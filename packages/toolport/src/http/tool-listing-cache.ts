import type { RegistryEntry } from '../core/tool-registry.ts';
import type { CodeToolLoadError } from '../custom-tools/code-tool-set.ts';
import type { StoredToolSettings } from '../persistence/repositories/tool-settings-repository.ts';
import type { PolicySubject } from '../policy/policy-denied.ts';
import type { ToolListingInputs } from '../services/tool-settings-service.ts';

/** Everything `GET /api/settings/tools` is built from, besides the process's frozen operator policy. */
export interface ToolListingKey {
  readonly user: PolicySubject;
  readonly inputs: ToolListingInputs;
  readonly loadErrors: readonly CodeToolLoadError[];
}

interface CachedListing {
  readonly isAdmin: boolean;
  readonly entries: readonly RegistryEntry[];
  readonly saved: ReadonlyMap<string, StoredToolSettings>;
  readonly loadErrors: readonly CodeToolLoadError[];
  readonly body: Buffer;
}

const MAX_USERS = 256;

function sameEntries(left: readonly RegistryEntry[], right: readonly RegistryEntry[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) {
    const a = left[index]!;
    const b = right[index]!;
    if (a.tool !== b.tool || a.source.kind !== b.source.kind || a.source.file !== b.source.file) return false;
  }
  return true;
}

function sameRows(
  left: ReadonlyMap<string, StoredToolSettings>,
  right: ReadonlyMap<string, StoredToolSettings>,
): boolean {
  if (left.size !== right.size) return false;
  for (const [name, row] of left) if (right.get(name) !== row) return false;
  return true;
}

function sameList<T>(left: readonly T[], right: readonly T[]): boolean {
  return left.length === right.length && left.every((item, index) => item === right[index]);
}

/**
 * Issue 11: the serialized body of each user's last `GET /api/settings/tools`, sent again while every input of the
 * listing is the same object it was built from — so the check is exact by construction, with no version to forget:
 *
 * - tools: the same `RegisteredTool` objects (registry, code tools reloaded only when their files change) with the
 *   same source kind and file, in the same order. Sources that build fresh entries on every listing (MCP, HTTP,
 *   agent and workspace tools) never match, so a user who has any is served as before, uncached.
 * - saved settings: the same row objects. The repository hands out the objects cached for the user's current
 *   `state_version` (read with the token on this very request, so a write through any instance shows) and fresh ones
 *   after a write through this process, which never match.
 * - code-tool load errors: the same array (the loaded snapshot's), and the user's admin flag.
 *
 * The body is the one Fastify's serializer produced for those inputs, kept as bytes: a hit skips building the
 * descriptors, serializing ~40 KB of JSON and encoding it for the socket.
 */
export class ToolListingCache {
  readonly #listings = new Map<string, CachedListing>();

  find({ user, inputs, loadErrors }: ToolListingKey): Buffer | undefined {
    const cached = this.#listings.get(user.id);
    if (
      cached === undefined ||
      cached.isAdmin !== user.isAdmin ||
      !sameList(cached.loadErrors, loadErrors) ||
      !sameRows(cached.saved, inputs.saved) ||
      !sameEntries(cached.entries, inputs.entries)
    ) {
      return undefined;
    }
    return cached.body;
  }

  /** Keeps `body` (what the route serialized for `key`) and returns it as the bytes to send. */
  store({ user, inputs, loadErrors }: ToolListingKey, body: string): Buffer {
    const bytes = Buffer.from(body);
    this.#listings.delete(user.id);
    if (this.#listings.size >= MAX_USERS) this.#listings.delete(this.#listings.keys().next().value!);
    this.#listings.set(user.id, {
      isAdmin: user.isAdmin,
      entries: inputs.entries,
      saved: inputs.saved,
      loadErrors,
      body: bytes,
    });
    return bytes;
  }
}
