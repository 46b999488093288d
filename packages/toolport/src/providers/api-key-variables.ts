import type { ProviderName } from './provider-adapter.ts';

/**
 * The environment variable each provider's SDK reads its key from by convention. Kept apart from
 * `create-provider-adapter.ts` so that reading it loads no provider SDK (`toolport mcp --user`, the config service).
 */
export const API_KEY_ENVIRONMENT_VARIABLES: Readonly<Record<ProviderName, string>> = {
  openai: 'OPENAI_API_KEY',
  'openai-chat': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
  'gemini-interactions': 'GEMINI_API_KEY',
};
