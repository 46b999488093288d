import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../database-schema.ts';
import { currentTimestamp } from './row-values.ts';

export interface ImageRow {
  id: string;
  userId: string;
  chatId: string | undefined;
  callId: string | undefined;
  mimeType: string;
  model: string;
  data: Uint8Array;
}

/** Generated images (IMG-1). Every read filters by owner (AUTH-1): someone else's image reads as missing. */
export class ImageRepository {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  async insert(image: ImageRow): Promise<void> {
    await this.#db
      .insertInto('images')
      .values({
        id: image.id,
        user_id: image.userId,
        chat_id: image.chatId ?? null,
        call_id: image.callId ?? null,
        mime_type: image.mimeType,
        model: image.model,
        bytes: image.data.byteLength,
        data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength),
        created_at: currentTimestamp(),
      })
      .execute();
  }

  async get(userId: string, id: string): Promise<{ data: Uint8Array; mimeType: string } | undefined> {
    const row = await this.#db
      .selectFrom('images')
      .select(['data', 'mime_type'])
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row === undefined ? undefined : { data: new Uint8Array(row.data), mimeType: row.mime_type };
  }
}
