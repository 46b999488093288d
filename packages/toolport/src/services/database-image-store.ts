import { randomUUID } from 'node:crypto';
import type { GeneratedImage, ImageStore, StoredImage } from '../core/tool-types.ts';
import type { ImageRepository } from '../persistence/repositories/image-repository.ts';
import { IMAGE_EXTENSIONS } from '../providers/images/file-image-store.ts';

/** An image store the API can serve from: `GET /api/images/:id` reads through `readImage` for the caller. */
export interface ServedImageStore extends ImageStore {
  readImage(id: string, userId: string): Promise<{ data: Uint8Array; mimeType: string } | undefined>;
}

/**
 * IMG-1 in the database: the default store of `toolport serve`. Every instance sharing the database serves every
 * image (no affinity), and only to its owner. Ids keep an extension so a saved link opens as an image.
 */
export class DatabaseImageStore implements ServedImageStore {
  readonly #images: ImageRepository;
  readonly #urlPrefix: string;

  constructor(images: ImageRepository, urlPrefix = '/api/images/') {
    this.#images = images;
    this.#urlPrefix = urlPrefix;
  }

  async saveImage(
    image: GeneratedImage,
    owner: { userId: string; chatId: string | undefined; callId: string },
  ): Promise<StoredImage> {
    const id = `${randomUUID()}.${IMAGE_EXTENSIONS[image.mimeType] ?? 'bin'}`;
    await this.#images.insert({
      id,
      userId: owner.userId,
      chatId: owner.chatId,
      callId: owner.callId,
      mimeType: image.mimeType,
      model: image.model,
      data: image.data,
    });
    return { id, url: `${this.#urlPrefix}${id}`, mimeType: image.mimeType, bytes: image.data.byteLength };
  }

  readImage(id: string, userId: string): Promise<{ data: Uint8Array; mimeType: string } | undefined> {
    return this.#images.get(userId, id);
  }
}
