// Loaded before every test file (vitest setupFiles). Tests and benchmarks talk only to loopback: should a test ever
// build a provider client without an explicit base URL, the SDKs' environment defaults send it to a closed loopback
// port (the discard port) instead of the provider's public API.
const LOOPBACK_DISCARD = 'http://127.0.0.1:9';

for (const variable of [
  'OPENAI_BASE_URL',
  'ANTHROPIC_BASE_URL',
  'GOOGLE_GEMINI_BASE_URL',
  'GOOGLE_VERTEX_BASE_URL',
]) {
  process.env[variable] = `${LOOPBACK_DISCARD}/${variable.toLowerCase()}`;
}
