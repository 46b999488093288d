const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/**
 * SEC-1 (issue 9): a secret echoed back in each way a tool or a remote server plausibly returns it — raw, Base64 at
 * the three alignments of a longer stream, base64url, percent-encoded, JSON-escaped and HTTP Basic `user:secret`.
 */
export function echoedSecretForms(secret: string): Record<string, string> {
  return {
    raw: secret,
    base64: base64(secret),
    base64Offset1: base64(`x${secret}yz`),
    base64Offset2: base64(`xy${secret}z`),
    base64url: base64url(`abc${secret}`),
    percent: encodeURIComponent(secret),
    json: JSON.stringify({ value: secret }),
    basic: `Basic ${base64(`alice:${secret}`)}`,
  };
}

/**
 * The part of each echoed form that gives the secret away: the whole raw, percent and JSON forms, and the inner
 * characters of a Base64 form (the outer two or three depend on the neighbouring bytes too).
 */
export function secretTells(secret: string): string[] {
  const forms = echoedSecretForms(secret);
  return [
    secret,
    forms.percent!,
    JSON.stringify(secret).slice(1, -1),
    ...[
      forms.base64!,
      forms.base64Offset1!,
      forms.base64Offset2!,
      forms.base64url!,
      forms.basic!.slice(6),
    ].map((form) => form.slice(4, -4)),
  ];
}
