import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GeneratedImage, ImageStore, StoredImage } from '../../core/tool-types.ts';

const EXTENSIONS: Record<string, string> = {
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

  constructor(directory: string, urlPrefix = '/api/images/') {
    this.#directory = directory;
    this.#urlPrefix = urlPrefix;
  }

  async saveImage(image: GeneratedImage): Promise<StoredImage> {
    await mkdir(this.#directory, { recursive: true });
    const id = `${randomUUID()}.${EXTENSIONS[image.mimeType] ?? 'bin'}`;
    const temporary = join(this.#directory, `.${id}.tmp`);
    await writeFile(temporary, image.data);
    await rename(temporary, join(this.#directory, id));
    return { id, url: `${this.#urlPrefix}${id}`, mimeType: image.mimeType, bytes: image.data.byteLength };
  }

  /** The bytes and type of a stored image, or undefined for an unknown (or malformed) id. */
  async readImage(id: string): Promise<{ data: Uint8Array; mimeType: string } | undefined> {
    if (!/^[0-9a-f-]{36}\.[a-z]+$/.test(id)) return undefined;
    try {
      const data = await readFile(join(this.#directory, id));
      const extension = id.split('.').at(-1)!;
      const mimeType =
        Object.entries(EXTENSIONS).find(([, candidate]) => candidate === extension)?.[0] ??
        'application/octet-stream';
      return { data: new Uint8Array(data), mimeType };
    } catch {
      return undefined;
    }
  }
}
