import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GeneratedImage, ImageStore, StoredImage } from '../../core/tool-types.ts';

/** The file extension an image id carries per MIME type (file and database stores alike). */
export const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

/**
 * Keeps generated images as files in a directory (the data dir's `images/`), named by a random id, and reports the
 * URL the API serves them under (`/api/images/<id>`). `readImage` is what that route calls.
 */
export class FileImageStore implements ImageStore {
  readonly #directory: string;
  readonly #urlPrefix: string;
  readonly #scopeByUser: boolean;

  /**
   * With `scopeByUser`, each user's images live in their own subdirectory and `readImage` needs the owner: the API
   * serves an image to its owner only (another user's id reads as unknown).
   */
  constructor(directory: string, urlPrefix = '/api/images/', options: { scopeByUser?: boolean } = {}) {
    this.#directory = directory;
    this.#urlPrefix = urlPrefix;
    this.#scopeByUser = options.scopeByUser === true;
  }

  #directoryFor(userId: string | undefined): string | undefined {
    if (!this.#scopeByUser) return this.#directory;
    if (userId === undefined || !/^[A-Za-z0-9_-]{1,128}$/.test(userId)) return undefined;
    return join(this.#directory, userId);
  }

  async saveImage(image: GeneratedImage, owner?: { userId: string }): Promise<StoredImage> {
    const directory = this.#directoryFor(owner?.userId);
    if (directory === undefined)
      throw new Error('FileImageStore: this store keeps images per user; no valid owner');
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const id = `${randomUUID()}.${IMAGE_EXTENSIONS[image.mimeType] ?? 'bin'}`;
    const temporary = join(directory, `.${id}.tmp`);
    await writeFile(temporary, image.data);
    await rename(temporary, join(directory, id));
    return { id, url: `${this.#urlPrefix}${id}`, mimeType: image.mimeType, bytes: image.data.byteLength };
  }

  /** The bytes and type of a stored image, or undefined for an unknown (or malformed, or another user's) id. */
  async readImage(id: string, userId?: string): Promise<{ data: Uint8Array; mimeType: string } | undefined> {
    if (!/^[0-9a-f-]{36}\.[a-z]+$/.test(id)) return undefined;
    const directory = this.#directoryFor(userId);
    if (directory === undefined) return undefined;
    try {
      const data = await readFile(join(directory, id));
      const extension = id.split('.').at(-1)!;
      const mimeType =
        Object.entries(IMAGE_EXTENSIONS).find(([, candidate]) => candidate === extension)?.[0] ??
        'application/octet-stream';
      return { data: new Uint8Array(data), mimeType };
    } catch {
      return undefined;
    }
  }
}
