/** The media types web_page_summary reads (WEB-1: HTML, XHTML and text only). */
export type DocumentKind = 'html' | 'xhtml' | 'text';

export function documentKindOf(contentType: string | undefined): DocumentKind | undefined {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'text/html') return 'html';
  if (mediaType === 'application/xhtml+xml') return 'xhtml';
  if (mediaType === 'text/plain') return 'text';
  return undefined;
}

/** How far into the document the encoding sniffer looks, as the WHATWG prescan does (1024 bytes). */
const PRESCAN_BYTES = 1024;

/**
 * The document's text, decoded with the charset its headers name, else a BOM, else a `<meta charset>` /
 * `http-equiv` / XML declaration in the first 1024 bytes, else UTF-8 — falling back to windows-1252 when the bytes
 * are not valid UTF-8 (the web's legacy default). When the byte cap `cut` the document, an incomplete UTF-8 sequence
 * at its very end is dropped before UTF-8 is judged, so the cut does not make a UTF-8 page look like windows-1252.
 */
export function decodeDocument(
  bytes: Uint8Array,
  contentType: string | undefined,
  options: { cut?: boolean } = {},
): { text: string; charset: string } {
  const declared =
    charsetFromContentType(contentType) ?? charsetFromBom(bytes) ?? charsetFromMarkup(bytes) ?? undefined;
  if (declared !== undefined) {
    const decoder = decoderFor(declared);
    if (decoder !== undefined) return { text: decoder.decode(bytes), charset: decoder.encoding };
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(
      options.cut === true ? trimPartialUtf8(bytes) : bytes,
    );
    return { text, charset: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), charset: 'windows-1252' };
  }
}

function decoderFor(label: string): InstanceType<typeof TextDecoder> | undefined {
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return undefined; // An unknown label is ignored, as browsers do.
  }
}

function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1];
}

function charsetFromBom(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

function charsetFromMarkup(bytes: Uint8Array): string | undefined {
  // The prescan only needs ASCII: the markup that declares an encoding is ASCII in every encoding it may declare.
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, PRESCAN_BYTES));
  const meta = /<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_:.-]+)/i.exec(head);
  if (meta !== null) return meta[1];
  const xml = /<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.-]+)["']/i.exec(head);
  return xml?.[1];
}

/** Drops an incomplete UTF-8 sequence at the very end (the byte cap can cut one), so `fatal` judges the rest. */
function trimPartialUtf8(bytes: Uint8Array): Uint8Array {
  for (let back = 1; back <= 3 && back <= bytes.length; back += 1) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const expected = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return expected > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}
